// The Worker the tests call (exports.default): src/index.ts's Worker as deployed.
export { default } from '../src/index.ts';
