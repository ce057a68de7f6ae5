// The Worker the tests call (exports.default): src/index.ts's Worker, with its app loaded when this
// module loads. Deployed, the Worker imports the app through a bundled initialiser that does no
// I/O; under vitest a dynamic import goes through the test runner's module loader over I/O, which
// workerd refuses to share between concurrent requests.
import * as appModule from '../src/app.ts';
import { createWorker } from '../src/index.ts';

export default createWorker(async () => appModule);
