// Swagger UI on this service's own document. A file, not an inline script: the page's
// Content-Security-Policy allows scripts from this origin only.
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: new URL("openapi.json", document.baseURI).href,
    dom_id: "#swagger-ui",
    deepLinking: true,
    // No call to the public validator: the page must work on a host without internet.
    validatorUrl: null,
  });
});
