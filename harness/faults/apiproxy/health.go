package main

import (
	"net/http"
	"os"
	"strconv"
	"time"
)

// upstreamHealthFromEnv is upstreamHealth of this process's environment.
func upstreamHealthFromEnv() *http.HTTP2Config { return upstreamHealth(os.Getenv) }

// upstreamHealth is the HTTP/2 health check of the connection to the API server, from the
// variables client-go reads for its own (k8s.io/apimachinery/pkg/util/net):
// HTTP2_READ_IDLE_TIMEOUT_SECONDS, the silence after which a PING is sent (default 30, 0 turns
// the check off), and HTTP2_PING_TIMEOUT_SECONDS, how long that PING may go unanswered
// (default 15); a value that is not a whole number of seconds >= 0 gives the default. PINGs
// are hop by hop: the operator's reach only this proxy, so a stall between the proxy and the
// API server is noticed by this check alone; it then closes the connection, every stream on
// it fails, and the operator's watches through it end with an error and are re-established.
// The Python handle passes the operator's values (ApiProxy(operator_env=...)), so the proxy
// notices a stall behind it as soon as the operator would notice one in front of it.
func upstreamHealth(getenv func(string) string) *http.HTTP2Config {
	seconds := func(name string, def int) time.Duration {
		if n, err := strconv.Atoi(getenv(name)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second
		}
		return time.Duration(def) * time.Second
	}
	return &http.HTTP2Config{
		SendPingTimeout: seconds("HTTP2_READ_IDLE_TIMEOUT_SECONDS", 30),
		PingTimeout:     seconds("HTTP2_PING_TIMEOUT_SECONDS", 15),
	}
}
