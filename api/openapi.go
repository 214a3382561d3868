package api

import _ "embed"

// OpenAPIDocument is the OpenAPI 3.1 description of the public API
// (openapi.yaml): every endpoint, schema, parameter, status and header, and
// the outbound webhooks. The server may serve it as is at GET /openapi.yaml
// (Content-Type application/yaml); tests validate responses against it.
//
//go:embed openapi.yaml
var OpenAPIDocument []byte
