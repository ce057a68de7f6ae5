// The trivial Worker of `npm run bench:startup`: what any Worker costs to start and to answer,
// the zero the service's cold start is measured from. It answers every request as the service
// answers GET /me without a key (401, a small JSON body), touching no binding.
export default {
  fetch(): Response {
    return new Response('{"code":"unauthorized"}', { status: 401, headers: { 'Content-Type': 'application/problem+json' } });
  },
};
