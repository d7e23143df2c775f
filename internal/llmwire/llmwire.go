// Package llmwire knows the LLM provider protocols ("wires") by their
// request paths and error shapes, so that the scripted server, the
// recorder and the replaying provider agree on them.
package llmwire

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Wire names a provider protocol.
type Wire string

// The wires.
const (
	Chat      Wire = "openai-chat"        // POST …/chat/completions
	Responses Wire = "openai-responses"   // POST …/responses
	Anthropic Wire = "anthropic-messages" // POST …/messages
	Gemini    Wire = "gemini"             // POST …/models/{model}:streamGenerateContent or :generateContent

	AzureChat      Wire = "azure-openai-chat"      // POST …/openai/deployments/{d}/chat/completions, …/openai/v1/chat/completions
	AzureResponses Wire = "azure-openai-responses" // POST …/openai/deployments/{d}/responses, …/openai/responses, …/openai/v1/responses
	Vertex         Wire = "vertex-gemini"          // POST …/publishers/google/models/{model}:streamGenerateContent or :generateContent
	Bedrock        Wire = "bedrock-converse"       // POST …/model/{modelId}/converse-stream or /converse
	Ollama         Wire = "ollama-chat"            // POST …/api/chat
)

// All lists the wires in a fixed order.
var All = []Wire{Chat, Responses, Anthropic, Gemini, AzureChat, AzureResponses, Vertex, Bedrock, Ollama}

// Base returns the wire w is a deployment of, whose messages it speaks:
// Chat for AzureChat, Responses for AzureResponses, Gemini for Vertex;
// w itself for the others.
func (w Wire) Base() Wire {
	switch w {
	case AzureChat:
		return Chat
	case AzureResponses:
		return Responses
	case Vertex:
		return Gemini
	}
	return w
}

// String returns the wire's name as its provider calls it.
func (w Wire) String() string {
	switch w {
	case Chat:
		return "OpenAI Chat Completions"
	case Responses:
		return "OpenAI Responses"
	case Anthropic:
		return "Anthropic Messages"
	case Gemini:
		return "Gemini"
	case AzureChat:
		return "Azure OpenAI Chat Completions"
	case AzureResponses:
		return "Azure OpenAI Responses"
	case Vertex:
		return "Vertex AI Gemini"
	case Bedrock:
		return "Bedrock Converse"
	case Ollama:
		return "Ollama"
	}
	return string(w)
}

// Of returns the wire a request path belongs to, judged by how the path
// ends so that any base URL prefix works, or "" for other paths.
func Of(path string) Wire {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		if azure(strings.TrimSuffix(path, "/chat/completions")) {
			return AzureChat
		}
		return Chat
	case strings.HasSuffix(path, "/responses"):
		if azure(strings.TrimSuffix(path, "/responses")) {
			return AzureResponses
		}
		return Responses
	case strings.HasSuffix(path, "/messages"):
		return Anthropic
	case strings.HasSuffix(path, "/api/chat"):
		return Ollama
	}
	if _, _, ok := BedrockModel(path); ok {
		return Bedrock
	}
	if _, _, ok := GeminiModel(path); ok {
		if strings.Contains(path, "/publishers/") {
			return Vertex
		}
		return Gemini
	}
	return ""
}

// azure reports whether the part of a path before its wire's tail is an
// Azure OpenAI prefix: …/openai/deployments/{deployment}, …/openai/v1 or
// …/openai.
func azure(prefix string) bool {
	if i := strings.LastIndex(prefix, "/openai/deployments/"); i >= 0 {
		d := prefix[i+len("/openai/deployments/"):]
		return d != "" && !strings.Contains(d, "/")
	}
	return strings.HasSuffix(prefix, "/openai/v1") || strings.HasSuffix(prefix, "/openai")
}

// AzureDeployment returns the deployment named by an Azure path
// (…/openai/deployments/{deployment}/…), or "".
func AzureDeployment(path string) string {
	i := strings.LastIndex(path, "/openai/deployments/")
	if i < 0 {
		return ""
	}
	d, _, _ := strings.Cut(path[i+len("/openai/deployments/"):], "/")
	return d
}

// BedrockModel returns the model id named by a Bedrock path
// (…/model/{modelId}/converse-stream or /converse), as it is in the path
// (an ARN's slashes escaped, as the SDKs send it, or not), and whether the
// path asks for a stream.
func BedrockModel(path string) (model string, stream, ok bool) {
	rest, method, found := cutLast(path, "/")
	if !found {
		return "", false, false
	}
	switch method {
	case "converse-stream":
		stream = true
	case "converse":
	default:
		return "", false, false
	}
	i := strings.Index(rest, "/model/")
	if i < 0 || i+len("/model/") == len(rest) {
		return "", false, false
	}
	return rest[i+len("/model/"):], stream, true
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// GeminiModel returns the model named by a Gemini path
// (…/models/{model}:streamGenerateContent or :generateContent) and
// whether the path asks for a stream.
func GeminiModel(path string) (model string, stream, ok bool) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", false, false
	}
	rest := path[i+len("/models/"):]
	model, method, found := strings.Cut(rest, ":")
	if !found || model == "" || strings.Contains(model, "/") {
		return "", false, false
	}
	switch method {
	case "streamGenerateContent":
		return model, true, true
	case "generateContent":
		return model, false, true
	}
	return "", false, false
}

// An Error is a provider error, rendered in each wire's own shape by Body.
type Error struct {
	// Status is the HTTP status.
	Status int
	// Message is the error's text.
	Message string
	// Type is OpenAI's error type, Anthropic's error.type, or Gemini's
	// status ("RESOURCE_EXHAUSTED"). Empty means the default for Status.
	Type string
	// Code is OpenAI's error code (null when empty; see DefaultCode).
	// Unused elsewhere.
	Code string
	// Param is OpenAI's error param (null when empty).
	Param string
	// RetryDelay, for Gemini, adds a google.rpc.RetryInfo detail
	// ("2s"); other wires send it as the Retry-After header.
	RetryDelay string
	// RequestID is Anthropic's request_id field; empty leaves it out.
	RequestID string
}

// Default fills the empty Message and Type of e with what the wire's
// provider sends for e.Status.
func (e Error) Default(w Wire) Error {
	msg, typ := defaults(w, e.Status)
	if e.Message == "" {
		e.Message = msg
	}
	if e.Type == "" {
		e.Type = typ
	}
	return e
}

// DefaultCode returns the error code OpenAI sends with status, for the
// OpenAI wires; "" (a null code) for the others.
func DefaultCode(w Wire, status int) string {
	switch w.Base() {
	case Anthropic, Gemini, Bedrock, Ollama:
		return ""
	}
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status == http.StatusUnauthorized:
		return "invalid_api_key"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request"
}

func defaults(w Wire, status int) (msg, typ string) {
	switch w {
	case AzureChat, AzureResponses:
		switch status {
		case 401:
			return "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.", ""
		case 404:
			return "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.", ""
		case 429:
			return "Requests to the ChatCompletions_Create Operation under Azure OpenAI API have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second.", ""
		}
		if status == 400 {
			return "The request is invalid.", "invalid_request_error"
		}
		if status >= 500 {
			return "The server had an error processing your request. Sorry about that! You can retry your request, or contact us through an Azure support request if you keep seeing this error.", "server_error"
		}
	case Vertex:
		if status == 429 {
			return "Resource exhausted. Please try again later.", "RESOURCE_EXHAUSTED"
		}
		return defaults(Gemini, status)
	case Bedrock:
		switch {
		case status == 400:
			return "The request is invalid.", "ValidationException"
		case status == 403:
			return "You don't have access to the model with the specified model ID.", "AccessDeniedException"
		case status == 404:
			return "The provided model identifier is invalid.", "ResourceNotFoundException"
		case status == 408:
			return "Model has timed out in processing the request. Try your request again.", "ModelTimeoutException"
		case status == 424:
			return "The model returned an error. Try your request again.", "ModelErrorException"
		case status == 429:
			return "Too many requests, please wait before trying again.", "ThrottlingException"
		case status == 503:
			return "Bedrock is unable to process your request.", "ServiceUnavailableException"
		case status >= 500:
			return "The system encountered an unexpected error during processing. Try your request again.", "InternalServerException"
		}
		return "The request is invalid.", "ValidationException"
	case Ollama:
		switch {
		case status == 404:
			return "model not found, try pulling it first", ""
		case status == 429:
			return "too many requests", ""
		case status == 503:
			return "server busy, please try again.  maximum pending requests exceeded", ""
		case status >= 500:
			return "an error was encountered while running the model", ""
		}
		return "invalid request", ""
	case Anthropic:
		switch {
		case status == 400:
			return "Invalid request.", "invalid_request_error"
		case status == 401:
			return "invalid x-api-key", "authentication_error"
		case status == 403:
			return "Your API key does not have permission to use the specified resource.", "permission_error"
		case status == 404:
			return "Not found", "not_found_error"
		case status == 413:
			return "Request exceeds the maximum allowed number of bytes.", "request_too_large"
		case status == 429:
			return "Number of request tokens has exceeded your per-minute rate limit. Please reduce the prompt length or the maximum tokens requested, or try again later.", "rate_limit_error"
		case status == 529:
			return "Overloaded", "overloaded_error"
		case status == 504:
			return "Request timed out", "timeout_error"
		case status >= 500:
			return "Internal server error", "api_error"
		}
		return "Invalid request.", "invalid_request_error"
	case Gemini:
		switch {
		case status == 400:
			return "Request contains an invalid argument.", "INVALID_ARGUMENT"
		case status == 401:
			return "API key not valid. Please pass a valid API key.", "UNAUTHENTICATED"
		case status == 403:
			return "The caller does not have permission", "PERMISSION_DENIED"
		case status == 404:
			return "Requested entity was not found.", "NOT_FOUND"
		case status == 429:
			return "You exceeded your current quota, please check your plan and billing details.", "RESOURCE_EXHAUSTED"
		case status == 503:
			return "The model is overloaded. Please try again later.", "UNAVAILABLE"
		case status == 504:
			return "Deadline expired before operation could complete.", "DEADLINE_EXCEEDED"
		case status >= 500:
			return "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting", "INTERNAL"
		}
		return "Request contains an invalid argument.", "INVALID_ARGUMENT"
	}
	switch {
	case status == 429:
		return "Rate limit reached for requests. Please try again later.", "requests"
	case status == 401:
		return "Incorrect API key provided.", "invalid_request_error"
	case status >= 500:
		return "The server had an error while processing your request.", "server_error"
	}
	return "The request is invalid.", "invalid_request_error"
}

// Body renders e (defaults filled in) as the wire's error JSON.
func (e Error) Body(w Wire) []byte {
	e = e.Default(w)
	switch w {
	case Bedrock:
		b, _ := json.Marshal(struct {
			Message string `json:"message"`
		}{e.Message})
		return b
	case Ollama:
		b, _ := json.Marshal(struct {
			Error string `json:"error"`
		}{e.Message})
		return b
	case AzureChat, AzureResponses:
		if b := e.azureBody(); b != nil {
			return b
		}
	case Anthropic:
		type body struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		b, _ := json.Marshal(struct {
			Type      string `json:"type"`
			Error     body   `json:"error"`
			RequestID string `json:"request_id,omitempty"`
		}{"error", body{e.Type, e.Message}, e.RequestID})
		return b
	case Gemini, Vertex:
		type detail struct {
			Type       string `json:"@type"`
			RetryDelay string `json:"retryDelay"`
		}
		type body struct {
			Code    int      `json:"code"`
			Message string   `json:"message"`
			Status  string   `json:"status"`
			Details []detail `json:"details,omitempty"`
		}
		bd := body{e.Status, e.Message, e.Type, nil}
		if e.RetryDelay != "" {
			bd.Details = []detail{{"type.googleapis.com/google.rpc.RetryInfo", e.RetryDelay}}
		}
		b, _ := json.Marshal(struct {
			Error body `json:"error"`
		}{bd})
		return b
	}
	type body struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	bd := body{Message: e.Message, Type: e.Type}
	if e.Param != "" {
		bd.Param = &e.Param
	}
	if e.Code != "" {
		bd.Code = &e.Code
	}
	b, _ := json.Marshal(struct {
		Error body `json:"error"`
	}{bd})
	return b
}

// azureBody renders the errors Azure OpenAI words its own way: the
// content filter's refusal (code content_filter), and those whose code is
// the status ({"error":{"code":"429","message":...}}); nil for the others,
// which Azure sends as OpenAI does.
func (e Error) azureBody() []byte {
	if e.Code == ContentFilterCode {
		type inner struct {
			Code   string                    `json:"code"`
			Result map[string]FilterCategory `json:"content_filter_result"`
		}
		type body struct {
			Message    string  `json:"message"`
			Type       *string `json:"type"`
			Param      string  `json:"param"`
			Code       string  `json:"code"`
			Status     int     `json:"status"`
			InnerError inner   `json:"innererror"`
		}
		b, _ := json.Marshal(struct {
			Error body `json:"error"`
		}{body{e.contentFilterMessage(), nil, "prompt", ContentFilterCode, e.Status, inner{"ResponsibleAIPolicyViolation", ContentFilterResult(true)}}})
		return b
	}
	switch e.Status {
	case 401, 404, 429:
		code := strconv.Itoa(e.Status)
		if e.Status == 404 {
			code = "DeploymentNotFound"
		}
		if e.Code != "" && e.Code != DefaultCode(AzureChat, e.Status) {
			code = e.Code
		}
		b, _ := json.Marshal(struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}{struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}{code, e.Message}})
		return b
	}
	return nil
}

// ContentFilterCode is the error code of Azure OpenAI's content filter.
const ContentFilterCode = "content_filter"

func (e Error) contentFilterMessage() string {
	if e.Message != "" && e.Message != "The request is invalid." {
		return e.Message
	}
	return "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766"
}

// A FilterCategory is Azure's verdict on one category of its content
// filter.
type FilterCategory struct {
	Filtered bool   `json:"filtered"`
	Severity string `json:"severity"`
}

// ContentFilterResult is Azure's verdict on its four categories: all safe,
// or, when filtered, violence filtered at medium severity.
func ContentFilterResult(filtered bool) map[string]FilterCategory {
	safe := FilterCategory{false, "safe"}
	r := map[string]FilterCategory{"hate": safe, "self_harm": safe, "sexual": safe, "violence": safe}
	if filtered {
		r["violence"] = FilterCategory{true, "medium"}
	}
	return r
}

// ContentType is the Content-Type of the wire's error bodies.
func ContentType(w Wire) string {
	switch w.Base() {
	case Gemini:
		return "application/json; charset=UTF-8"
	case Ollama:
		return "application/json; charset=utf-8"
	}
	return "application/json"
}

// Header sets the headers that go with the wire's error bodies: Bedrock
// names the exception in X-Amzn-ErrorType, as AWS services do.
func (e Error) Header(w Wire, h http.Header) {
	if w == Bedrock {
		e = e.Default(w)
		h.Set("X-Amzn-Errortype", e.Type+":http://internal.amazon.com/coral/com.amazon.bedrock/")
		h.Set("X-Amzn-Requestid", "scripted-request")
	}
}
