package scripted

import (
	"net/http"

	"github.com/aguitest/aguitest/internal/llmwire"
)

// The wires of the clouds that deploy OpenAI's and Google's models: the
// same messages on paths of their own, with their credentials, and, on
// Azure, the content filter's results in every answer.

// azureAuth refuses a request with neither an api-key header nor a
// bearer token, as Azure OpenAI does (with 401).
func azureAuth(r *http.Request) *llmwire.Error {
	if r.Header.Get("Api-Key") != "" || r.Header.Get("Authorization") != "" {
		return nil
	}
	return &llmwire.Error{Status: http.StatusUnauthorized}
}

// vertexAuth refuses a request with no credentials, as Vertex AI does:
// an OAuth access token, or an API key (Vertex AI's express mode).
func vertexAuth(r *http.Request) *llmwire.Error {
	if r.Header.Get("Authorization") != "" || r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Get("key") != "" {
		return nil
	}
	return &llmwire.Error{Status: http.StatusUnauthorized, Type: "UNAUTHENTICATED",
		Message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."}
}

// The Chat Completions wire on Azure OpenAI.
var azureChatWire = &wireSpec{
	wire:     WireAzureChat,
	decode:   chatWire.decode,
	check:    checkChat,
	encoder:  chatWire.encoder,
	complete: completeChat,
	header: func(h http.Header, a *answer) {
		chatWire.header(h, a)
		h.Set("Apim-Request-Id", "00000000-0000-4000-8000-000000000001")
	},
	auth: azureAuth,
}

// The Responses wire on Azure OpenAI.
var azureResponsesWire = &wireSpec{
	wire:     WireAzureResponses,
	decode:   responsesWire.decode,
	encoder:  responsesWire.encoder,
	complete: responsesWire.complete,
	header:   responsesWire.header,
	taken:    responsesWire.taken,
	auth:     azureAuth,
}

// The Gemini wire on Vertex AI.
var vertexWire = &wireSpec{
	wire:     WireVertex,
	decode:   geminiWire.decode,
	encoder:  geminiWire.encoder,
	complete: completeGemini,
	auth:     vertexAuth,
}
