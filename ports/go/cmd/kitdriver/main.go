// The client kit's driver for the Go port: the protocol of docs/ports.md over stdin/stdout,
// performed by package port over the generated client.
//
//	together-rl-client-kit --driver "ports/go/.build/kitdriver"
//
// With -closed-status-enum it decodes operation statuses as a closed enum, as a client generated
// from a spec with a closed OperationStatus does: the kit's poll.unknown-status then fails it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"together-rl-ports/port"
	"together-rl-ports/rlapi"
)

var supports = []string{
	"caller-idempotency-key", "download", "forwardBackward", "getTrainingSession",
	"idempotency-key", "polling", "retries", "retry-after", "retry-after-http-date",
	"retry-after-ms", "upload",
}

type request struct {
	ID             int               `json:"id"`
	Op             string            `json:"op"`
	Path           map[string]string `json:"path"`
	Body           json.RawMessage   `json:"body"`
	IdempotencyKey string            `json:"idempotency_key"`
}

func main() {
	closed := flag.Bool("closed-status-enum", false, "fail on an operation status the spec does not list")
	flag.Parse()
	client, err := port.New(os.Getenv("TOGETHER_BASE_URL"), os.Getenv("TOGETHER_API_KEY"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "kitdriver:", err)
		os.Exit(2)
	}
	name := "go port (openapi-generator go)"
	if *closed {
		client.CheckStatus = port.ClosedStatusEnum
		name += ", closed status enum"
	}
	out := json.NewEncoder(os.Stdout)
	_ = out.Encode(map[string]interface{}{"driver": name, "supports": supports})
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 1<<20), 1<<30)
	for lines.Scan() {
		var call request
		if err := json.Unmarshal(lines.Bytes(), &call); err != nil {
			fmt.Fprintln(os.Stderr, "kitdriver: a line that is not a request:", err)
			continue
		}
		result, err := perform(client, call)
		if err == nil {
			_ = out.Encode(map[string]interface{}{"id": call.ID, "ok": true, "result": result})
			continue
		}
		var status interface{}
		var failure *port.APIError
		if errors.As(err, &failure) && failure.Status != 0 {
			status = failure.Status
		}
		_ = out.Encode(map[string]interface{}{"id": call.ID, "ok": false, "error": map[string]interface{}{"status": status, "message": err.Error()}})
	}
}

func perform(client *port.Client, call request) (interface{}, error) {
	ctx := context.Background()
	sessionID := call.Path["session_id"]
	switch call.Op {
	case "forwardBackward":
		var body rlapi.ForwardBackwardBody
		if err := json.Unmarshal(call.Body, &body); err != nil {
			return nil, fmt.Errorf("the body is not a ForwardBackwardBody: %v", err)
		}
		return client.ForwardBackward(ctx, sessionID, body, call.IdempotencyKey)
	case "getTrainingSession":
		return client.GetSession(ctx, sessionID)
	}
	return nil, fmt.Errorf("the Go port does not perform %s", call.Op)
}
