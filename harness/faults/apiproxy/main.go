// Command apiproxy is ModelDock's TLS-terminating reverse proxy for one operator's connection
// to kube-apiserver: the operator's kubeconfig points at it, it forwards every request to the
// API server with the operator's own credential — its client certificate, configured here, or
// the bearer token in the operator's own Authorization header, passed through — so
// authentication, RBAC and the audit log see the operator's user, and it can hold the watch events of chosen resources so that
// the operator's informer cache lags behind its own writes. Standard library only.
//
//	apiproxy --upstream https://127.0.0.1:6443 --upstream-ca ca.crt \
//	    [--client-cert op.crt --client-key op.key] --tls-cert serving.crt --tls-key serving.key \
//	    [--listen 127.0.0.1:0] [--control-listen 127.0.0.1:0] [--ready-file ready.json]
//
// When both listeners are up it prints one JSON line (and writes it to --ready-file,
// atomically): {"proxy": "127.0.0.1:PORT", "control": "127.0.0.1:PORT", "pid": N, "upstream": URL}.
// The proxy serves HTTP/2 and HTTP/1.1 over TLS, as the client negotiates by ALPN; the control
// API (see ControlHandler) is plain HTTP. SIGTERM or SIGINT stops it (exit 0).
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "apiproxy: %v\n", err)
		os.Exit(1)
	}
}

func certPool(caPEM []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("no PEM certificate in the upstream CA file")
	}
	return pool, nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("apiproxy", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "TLS address the operator connects to")
	controlListen := fs.String("control-listen", "127.0.0.1:0", "plain-HTTP address of the control API")
	tlsCert := fs.String("tls-cert", "", "serving certificate (PEM) the operator's CA trusts")
	tlsKey := fs.String("tls-key", "", "serving key (PEM)")
	upstreamURL := fs.String("upstream", "", "kube-apiserver URL, e.g. https://127.0.0.1:6443")
	upstreamCA := fs.String("upstream-ca", "", "CA (PEM) that signed the API server's serving certificate")
	clientCert := fs.String("client-cert", "", "the operator's client certificate (PEM), presented to the API server; none: the client's Authorization header authenticates it")
	clientKey := fs.String("client-key", "", "the operator's client key (PEM)")
	readyFile := fs.String("ready-file", "", "write the ready JSON here too (atomically)")
	requestLog := fs.String("request-log", "", "append every request and delivered watch event here (JSON lines, reclog.go)")
	checkUpstream := fs.Bool("check-upstream", true, "GET /version from the API server before reporting ready")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for name, v := range map[string]string{"tls-cert": *tlsCert, "tls-key": *tlsKey,
		"upstream": *upstreamURL, "upstream-ca": *upstreamCA} {
		if v == "" {
			return fmt.Errorf("--%s is required", name)
		}
	}
	if (*clientCert == "") != (*clientKey == "") {
		return errors.New("--client-cert and --client-key go together")
	}
	logger := log.New(os.Stderr, "apiproxy: ", log.LstdFlags|log.Lmicroseconds)

	upstream, err := url.Parse(*upstreamURL)
	if err != nil || upstream.Scheme != "https" || upstream.Host == "" {
		return fmt.Errorf("--upstream %q: want https://host:port", *upstreamURL)
	}
	caPEM, err := os.ReadFile(*upstreamCA)
	if err != nil {
		return fmt.Errorf("reading --upstream-ca: %w", err)
	}
	var cert *tls.Certificate
	if *clientCert != "" {
		pair, err := tls.LoadX509KeyPair(*clientCert, *clientKey)
		if err != nil {
			return fmt.Errorf("loading the client certificate: %w", err)
		}
		cert = &pair
	}
	serving, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
	if err != nil {
		return fmt.Errorf("loading the serving certificate: %w", err)
	}
	transport, err := NewTransport(caPEM, cert)
	if err != nil {
		return err
	}
	if *checkUpstream {
		if err := probe(transport, upstream); err != nil {
			return err
		}
	}
	proxy := NewProxy(upstream, transport, logger)
	rlog, err := openReqLog(*requestLog)
	if err != nil {
		return fmt.Errorf("opening --request-log: %w", err)
	}
	defer rlog.close()
	proxy.SetRequestLog(rlog)

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *listen, err)
	}
	cln, err := net.Listen("tcp", *controlListen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *controlListen, err)
	}
	srv := &http.Server{
		Handler: proxy,
		// ServeTLS adds "h2" to NextProtos and serves HTTP/2 (PINGs included) to clients
		// that offer it by ALPN, HTTP/1.1 to the others.
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{serving}, MinVersion: tls.VersionTLS12},
		ErrorLog:          logger,
		ReadHeaderTimeout: 30 * time.Second,
	}
	csrv := &http.Server{Handler: proxy.ControlHandler(), ErrorLog: logger, ReadHeaderTimeout: 10 * time.Second}
	errs := make(chan error, 2)
	go func() { errs <- srv.ServeTLS(ln, "", "") }()
	go func() { errs <- csrv.Serve(cln) }()

	ready, _ := json.Marshal(map[string]any{"proxy": ln.Addr().String(), "control": cln.Addr().String(),
		"pid": os.Getpid(), "upstream": upstream.String()})
	if *readyFile != "" {
		tmp := filepath.Join(filepath.Dir(*readyFile), "."+filepath.Base(*readyFile)+".tmp")
		if err := os.WriteFile(tmp, append(ready, '\n'), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, *readyFile); err != nil {
			return err
		}
	}
	fmt.Println(string(ready))
	logger.Printf("ready: %s", ready)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	select {
	case sig := <-sigs:
		logger.Printf("%v: stopping", sig)
	case err := <-errs:
		return fmt.Errorf("serving: %w", err)
	}
	// Watches never end by themselves: close every connection rather than wait for them.
	_ = srv.Close()
	_ = csrv.Close()
	proxy.Drain(2 * time.Second) // their "done" lines written
	return nil
}

// probe checks that the API server answers with the configured CA (and identity: /version is
// open to every client, so a token-only proxy probes without one).
func probe(transport http.RoundTripper, upstream *url.URL) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	target := upstream.JoinPath("/version")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	res, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return fmt.Errorf("upstream unreachable: GET %s: %w", target, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("upstream answered GET %s with %s: %s", target, res.Status, body)
	}
	return nil
}
