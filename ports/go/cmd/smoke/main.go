// The Go port's smoke run: the core flow through the client that OpenAPI Generator makes from
// spec/openapi.yaml (package rlapi, generated at build time, never edited), against the
// emulator or any server of the spec:
//
//	TOGETHER_BASE_URL=http://127.0.0.1:8765 TOGETHER_API_KEY=test-key \
//	    go run ./cmd/smoke ../../spec/examples/valid/forward_backward.cross_entropy.json
//
// It creates model resources and a session, submits the forward-backward body of the file with
// an Idempotency-Key (sent again with the same key when the connection drops), polls it to
// COMPLETED through any other status, known or not, and submits the same key again, which must
// return the same operation. It prints one JSON line of what it saw and exits 1 when the flow
// breaks.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"together-rl-ports/rlapi"
)

const (
	completed = "TRAINING_OPERATION_STATUS_COMPLETED"
	failed    = "TRAINING_OPERATION_STATUS_FAILED"
)

func main() {
	if len(os.Args) != 2 {
		fail("usage: smoke FORWARD_BACKWARD_BODY.json")
	}
	api := newClient(os.Getenv("TOGETHER_BASE_URL"), os.Getenv("TOGETHER_API_KEY"))
	ctx := context.Background()

	resources, _, err := api.RlAPI.CreateModelResources(ctx).
		ModelResourcesCreate(*rlapi.NewModelResourcesCreate("emulator/tiny-1k")).Execute()
	check("createModelResources", err)
	session, _, err := api.RlAPI.StartTrainingSession(ctx).
		SessionCreate(*rlapi.NewSessionCreate(resources.Id)).Execute()
	check("startTrainingSession", err)

	raw, err := os.ReadFile(os.Args[1])
	check("read the body", err)
	var body rlapi.ForwardBackwardBody
	check("decode the body", json.Unmarshal(raw, &body))

	key := newKey()
	submit := func() (*rlapi.ForwardBackwardOperation, int) {
		for attempt := 1; ; attempt++ {
			operation, response, err := api.RlAPI.ForwardBackward(ctx, session.Id).
				IdempotencyKey(key).ForwardBackwardBody(body).Execute()
			if err == nil {
				return operation, attempt
			}
			if response != nil || attempt == 5 { // an answer, or too many lost ones
				fail(fmt.Sprintf("forwardBackward: %v", err))
			}
			time.Sleep(100 * time.Millisecond) // no answer: the same key again
		}
	}
	operation, attempts := submit()

	var statuses []string
	for len(statuses) < 500 {
		status := string(operation.GetStatus())
		statuses = append(statuses, status)
		if status == completed || status == failed {
			break
		}
		time.Sleep(20 * time.Millisecond) // any other status, known or not: not done yet
		operation, _, err = api.RlAPI.GetForwardBackwardOperation(ctx, session.Id, operation.Id).Execute()
		check("getForwardBackwardOperation", err)
	}
	replayed, _ := submit()

	report := map[string]interface{}{
		"port":                  "go",
		"operation_id":          operation.Id,
		"replayed_operation_id": replayed.Id,
		"submit_attempts":       attempts,
		"statuses":              statuses,
		"loss":                  operation.GetOutput().Loss,
	}
	line, _ := json.Marshal(report)
	fmt.Println(string(line))
	if statuses[len(statuses)-1] != completed || replayed.Id != operation.Id {
		os.Exit(1)
	}
}

// newClient points the generated client at TOGETHER_BASE_URL (a server root, without the
// path of the spec's server URL, which is appended) with the bearer key on every request.
func newClient(baseURL, apiKey string) *rlapi.APIClient {
	config := rlapi.NewConfiguration()
	declared, err := url.Parse(config.Servers[0].URL)
	check("the spec's server URL", err)
	config.Servers = rlapi.ServerConfigurations{{URL: strings.TrimRight(baseURL, "/") + declared.Path}}
	config.AddDefaultHeader("Authorization", "Bearer "+apiKey)
	return rlapi.NewAPIClient(config)
}

func newKey() string {
	b := make([]byte, 16)
	_, err := rand.Read(b)
	check("random key", err)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func check(what string, err error) {
	if err != nil {
		fail(fmt.Sprintf("%s: %v", what, err))
	}
}

func fail(message string) {
	fmt.Fprintln(os.Stderr, "smoke:", message)
	os.Exit(1)
}
