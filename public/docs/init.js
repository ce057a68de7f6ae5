// Starts Swagger UI on the service's own OpenAPI document (served from this origin; no CDN).
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: true,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  // Never send the document to validator.swagger.io (the page makes no third-party requests).
  validatorUrl: null,
});
