// Package port is what a port adds to the client OpenAPI Generator makes from the spec
// (package rlapi, used untouched): one Idempotency-Key per logical call, reused on its retries;
// retries of lost connections, cut answers, 408/409/429 and 5xx, never of other 4xx; waits that
// honour Retry-After; polling until COMPLETED or FAILED through any other status; bodies over
// the spec's threshold uploaded, offloaded results downloaded.
package port

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"together-rl-ports/rlapi"
)

const (
	Completed = "TRAINING_OPERATION_STATUS_COMPLETED"
	Failed    = "TRAINING_OPERATION_STATUS_FAILED"
	// Polls start 20 ms apart and slow down by half each time, to at most 1 s apart.
	pollStart = 20 * time.Millisecond
	pollMax   = time.Second
)

// Client drives the API through the generated client.
type Client struct {
	api  *rlapi.APIClient
	http *http.Client
	// CheckStatus, when set, sees every status an operation is answered with; an error from it
	// ends the call (see ClosedStatusEnum).
	CheckStatus func(status string) error
}

// New points the generated client at baseURL (a server root, as TOGETHER_BASE_URL gives it;
// the path of the spec's server URL is appended) with the bearer key on every request.
func New(baseURL, apiKey string) (*Client, error) {
	config := rlapi.NewConfiguration()
	declared, err := url.Parse(config.Servers[0].URL)
	if err != nil {
		return nil, err
	}
	config.Servers = rlapi.ServerConfigurations{{URL: strings.TrimRight(baseURL, "/") + declared.Path}}
	config.AddDefaultHeader("Authorization", "Bearer "+apiKey)
	httpClient := &http.Client{Timeout: 120 * time.Second}
	config.HTTPClient = httpClient
	return &Client{api: rlapi.NewAPIClient(config), http: httpClient}, nil
}

// NewKey is a random UUID (version 4): one per logical call.
func NewKey() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// GetSession reads a training session, retried.
func (c *Client) GetSession(ctx context.Context, sessionID string) (*rlapi.Session, error) {
	return retried("getTrainingSession", func() (*rlapi.Session, *http.Response, error) {
		return c.api.RlAPI.GetTrainingSession(ctx, sessionID).Execute()
	})
}

// ForwardBackward submits a forward-backward pass and polls it to its end; its output comes
// back with any offloaded members merged in. An empty key means a new one.
func (c *Client) ForwardBackward(ctx context.Context, sessionID string, body rlapi.ForwardBackwardBody, key string) (map[string]interface{}, error) {
	if key == "" {
		key = NewKey()
	}
	sent, err := c.standIn(ctx, sessionID, body)
	if err != nil {
		return nil, err
	}
	operation, err := retried("forwardBackward", func() (*rlapi.ForwardBackwardOperation, *http.Response, error) {
		return c.api.RlAPI.ForwardBackward(ctx, sessionID).IdempotencyKey(key).ForwardBackwardBody(sent).Execute()
	})
	wait := pollStart
	for err == nil {
		status := string(operation.GetStatus())
		if c.CheckStatus != nil {
			if err = c.CheckStatus(status); err != nil {
				return nil, err
			}
		}
		if status == Completed {
			return c.downloaded(ctx, sessionID, operation.GetOutput())
		}
		if status == Failed {
			failure := operation.GetError()
			return nil, &APIError{Message: fmt.Sprintf("operation %s failed: %v: %s", operation.Id, failure.GetCode(), failure.GetMessage())}
		}
		// Any other status, known or not, means: not finished yet.
		time.Sleep(wait)
		if wait = wait * 3 / 2; wait > pollMax {
			wait = pollMax
		}
		id := operation.Id
		operation, err = retried("getForwardBackwardOperation", func() (*rlapi.ForwardBackwardOperation, *http.Response, error) {
			return c.api.RlAPI.GetForwardBackwardOperation(ctx, sessionID, id).Execute()
		})
	}
	return nil, err
}

// ClosedStatusEnum is what a client does whose generated OperationStatus is a closed enum: it
// fails on a value the spec did not list. The kit's poll.unknown-status fails such a client.
func ClosedStatusEnum(status string) error {
	switch status {
	case "TRAINING_OPERATION_STATUS_UNSPECIFIED", "TRAINING_OPERATION_STATUS_PENDING",
		"TRAINING_OPERATION_STATUS_RUNNING", Completed, Failed:
		return nil
	}
	return &APIError{Message: fmt.Sprintf("%q is not a valid OperationStatus", status)}
}
