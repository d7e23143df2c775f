// Package llmwire knows the LLM provider protocols ("wires") by their
// request paths and error shapes, so that the scripted server, the
// recorder and the replaying provider agree on them.
package llmwire

import (
	"encoding/json"
	"net/http"
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
)

// All lists the wires in a fixed order.
var All = []Wire{Chat, Responses, Anthropic, Gemini}

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
	}
	return string(w)
}

// Of returns the wire a request path belongs to, judged by how the path
// ends so that any base URL prefix works, or "" for other paths.
func Of(path string) Wire {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return Chat
	case strings.HasSuffix(path, "/responses"):
		return Responses
	case strings.HasSuffix(path, "/messages"):
		return Anthropic
	}
	if _, _, ok := GeminiModel(path); ok {
		return Gemini
	}
	return ""
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
	if w == Anthropic || w == Gemini {
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
	case Gemini:
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

// ContentType is the Content-Type of the wire's error bodies.
func ContentType(w Wire) string {
	if w == Gemini {
		return "application/json; charset=UTF-8"
	}
	return "application/json"
}
