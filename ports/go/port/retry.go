package port

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"time"

	"together-rl-ports/rlapi"
)

// The retry policy: at most MaxRetries retries of one request; waits that honour
// retry-after-ms, Retry-After (seconds or an HTTP date) up to MaxWait, and otherwise back off
// exponentially (0.25 s doubling, at most 8 s, with jitter).
const (
	MaxRetries = 8
	MaxWait    = 60 * time.Second
)

// APIError is what a call hands back when it ends without a result: Status is the HTTP status
// of the answer that ended it, or 0 when there was none (lost connections, a FAILED operation).
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return e.Message }

// retried sends one request until it has an answer worth keeping: a 2xx with a body that
// decodes, or a status that must not be retried. `send` must resend the same request (the same
// Idempotency-Key): it is the caller's closure over it.
func retried[T any](what string, send func() (*T, *http.Response, error)) (*T, error) {
	for attempt := 0; ; attempt++ {
		value, response, err := send()
		if err == nil && value != nil {
			return value, nil
		}
		retry, status := shouldRetry(response, err)
		if !retry || attempt >= MaxRetries {
			return nil, &APIError{Status: status, Message: fmt.Sprintf("%s: %s", what, describe(response, err))}
		}
		time.Sleep(retryDelay(attempt, response))
	}
}

// shouldRetry: no answer (a dropped connection), a 2xx whose body was cut short, or a status
// the server says may succeed later (x-should-retry, else 408/409/429/5xx).
func shouldRetry(response *http.Response, err error) (bool, int) {
	if response == nil {
		return true, 0
	}
	status := response.StatusCode
	if status < 300 {
		return true, status // the answer was cut or garbled: the same request again
	}
	switch response.Header.Get("x-should-retry") {
	case "true":
		return true, status
	case "false":
		return false, status
	}
	return status == 408 || status == 409 || status == 429 || status >= 500, status
}

func retryDelay(attempt int, response *http.Response) time.Duration {
	if response != nil {
		if ms, err := strconv.ParseFloat(response.Header.Get("retry-after-ms"), 64); err == nil && ms >= 0 {
			return bounded(time.Duration(ms * float64(time.Millisecond)))
		}
		after := strings.TrimSpace(response.Header.Get("retry-after"))
		if seconds, err := strconv.ParseFloat(after, 64); err == nil && seconds >= 0 {
			return bounded(time.Duration(seconds * float64(time.Second)))
		}
		if when, err := http.ParseTime(after); err == nil {
			return bounded(time.Until(when))
		}
	}
	backoff := math.Min(0.25*math.Pow(2, float64(attempt)), 8) * (0.75 + 0.25*rand.Float64())
	return time.Duration(backoff * float64(time.Second))
}

func bounded(wait time.Duration) time.Duration {
	if wait < 0 {
		return 0
	}
	if wait > MaxWait {
		return MaxWait
	}
	return wait
}

func describe(response *http.Response, err error) string {
	var generic *rlapi.GenericOpenAPIError
	if errors.As(err, &generic) && len(generic.Body()) > 0 {
		return fmt.Sprintf("%d %s", response.StatusCode, generic.Body())
	}
	if response != nil {
		return fmt.Sprintf("%d %v", response.StatusCode, err)
	}
	return fmt.Sprintf("no answer: %v", err)
}
