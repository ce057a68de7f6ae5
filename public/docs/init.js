// Starts Swagger UI on the service's own OpenAPI document (served from this origin; no CDN), of the
// API version the page's ?api_version= names (the links at the top), else the default one.
const version = new URLSearchParams(location.search).get('api_version');
window.ui = SwaggerUIBundle({
  url: version ? `/openapi.json?api_version=${encodeURIComponent(version)}` : '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: true,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  // Never send the document to validator.swagger.io (the page makes no third-party requests).
  validatorUrl: null,
});
