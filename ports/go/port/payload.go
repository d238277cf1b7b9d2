package port

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"together-rl-ports/rlapi"
)

// UploadThresholdBytes is the spec's `x-upload-threshold-bytes` (its createPayloadUploadUrl
// rule): a body over it goes through upload-url and a presigned PUT. A test keeps it equal to
// the spec's value.
const UploadThresholdBytes = 524288

// standIn is the body to POST: itself, or (over the threshold) its first sample naming the
// uploaded payload.
func (c *Client) standIn(ctx context.Context, sessionID string, body rlapi.ForwardBackwardBody) (rlapi.ForwardBackwardBody, error) {
	encoded, err := json.Marshal(body)
	if err != nil || len(encoded) <= UploadThresholdBytes {
		return body, err
	}
	where, err := retried("createPayloadUploadUrl", func() (*rlapi.PayloadUploadUrl, *http.Response, error) {
		return c.api.RlAPI.CreatePayloadUploadUrl(ctx, sessionID).Execute()
	})
	if err != nil {
		return body, err
	}
	_, err = retried("upload PUT", func() (*[]byte, *http.Response, error) {
		request, err := http.NewRequestWithContext(ctx, http.MethodPut, where.UploadUrl, bytes.NewReader(encoded))
		if err != nil {
			return nil, nil, err
		}
		request.Header.Set("Content-Type", "application/json")
		return c.plain(request) // presigned: no Authorization
	})
	if err != nil {
		return body, err
	}
	standIn := body
	standIn.Samples = body.Samples[:1]
	standIn.PayloadId = &where.PayloadId
	return standIn, nil
}

// downloaded is the output as JSON with its offloaded members (download-url, presigned GET)
// merged back in, and without payload_id.
func (c *Client) downloaded(ctx context.Context, sessionID string, output rlapi.ForwardBackwardResult) (map[string]interface{}, error) {
	merged, err := toMap(output)
	if err != nil || output.PayloadId == nil {
		return merged, err
	}
	payloadID := *output.PayloadId
	where, err := retried("createPayloadDownloadUrl", func() (*rlapi.PayloadDownloadUrl, *http.Response, error) {
		return c.api.RlAPI.CreatePayloadDownloadUrl(ctx, sessionID, payloadID).Execute()
	})
	if err != nil {
		return nil, err
	}
	fetched, err := retried("download GET", func() (*[]byte, *http.Response, error) {
		request, err := http.NewRequestWithContext(ctx, http.MethodGet, where.DownloadUrl, nil)
		if err != nil {
			return nil, nil, err
		}
		return c.plain(request)
	})
	if err != nil {
		return nil, err
	}
	var members map[string]interface{}
	if err := json.Unmarshal(*fetched, &members); err != nil {
		return nil, &APIError{Message: fmt.Sprintf("download GET: %v", err)}
	}
	delete(merged, "payload_id")
	for name, value := range members {
		merged[name] = value
	}
	return merged, nil
}

// plain sends a request outside the generated client (the presigned URLs), with the same
// (*T, *http.Response, error) shape the retry loop takes.
func (c *Client) plain(request *http.Request) (*[]byte, *http.Response, error) {
	response, err := c.http.Do(request)
	if err != nil {
		return nil, nil, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, response, err
	}
	if response.StatusCode >= 300 {
		return nil, response, fmt.Errorf("%s", body)
	}
	return &body, response, nil
}

func toMap(value interface{}) (map[string]interface{}, error) {
	encoded, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	var decoded map[string]interface{}
	return decoded, json.Unmarshal(encoded, &decoded)
}
