// catalog.go: registering each ModelService generation with the model catalog.
//
// CONTRACT.md, "The model catalog". With MODELDOCK_CATALOG_URL set, step 6 registers the
// ModelService's current generation with the catalog before it writes the status, once per
// generation: a status whose catalog.generation is the current one is registered already.
// The registration is an effect outside the cluster, which a crash can make happen without the
// operator learning of it (the catalog recorded it, its answer was lost), so every attempt of
// one generation carries the same durable identity, the Idempotency-Key
// "<metadata.uid>/<metadata.generation>": the catalog answers a key it has seen with the
// original registration and records nothing new. The answer goes into status.catalog.
//
// Python: python_operator/catalog.py, the same names.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

const (
	// catalogURLEnv names the catalog; unset or empty: no catalog, nothing is registered.
	catalogURLEnv = "MODELDOCK_CATALOG_URL"
	// catalogTimeout bounds one registration request.
	catalogTimeout = 10 * time.Second
)

// catalogClient registers with the catalog at url (scheme and host, no trailing slash).
type catalogClient struct {
	url  string
	http *http.Client
}

// catalogRegistration is the body of POST /registrations: the served model.
type catalogRegistration struct {
	Name     string `json:"name"`     // <namespace>/<name> of the ModelService
	Model    string `json:"model"`    // spec.model
	Image    string `json:"image"`    // spec.image
	Endpoint string `json:"endpoint"` // status.url
}

// catalogFromEnv is the catalog getenv(catalogURLEnv) names, nil when it is unset or empty,
// or an error naming the variable and the fix when it is not an http(s) URL with a host.
func catalogFromEnv(getenv func(string) string) (*catalogClient, error) {
	raw := strings.TrimSpace(getenv(catalogURLEnv))
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s=%q: must be the catalog's http:// or https:// URL; unset it to run without a catalog", catalogURLEnv, raw)
	}
	return &catalogClient{url: strings.TrimRight(raw, "/"), http: &http.Client{Timeout: catalogTimeout}}, nil
}

// requestKey is the durable identity of the registration of ms's current generation:
// "<metadata.uid>/<metadata.generation>", the same in every attempt, process and leader.
// Reconcile calls it through the seam catalogRequestKey (seams.go).
func requestKey(ms *unstructured.Unstructured) string {
	return fmt.Sprintf("%s/%d", ms.GetUID(), ms.GetGeneration())
}

// register sends reg under key and returns the catalog's id of the registration (a new one,
// or the original one for a key it has seen), or an error saying what failed.
func (c *catalogClient) register(ctx context.Context, key string, reg catalogRegistration) (string, error) {
	body, err := json.Marshal(reg)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/registrations", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("catalog registration %s: %w", key, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var answer struct {
		ID    string `json:"id"`
		Error string `json:"error"`
	}
	_ = json.Unmarshal(data, &answer)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("catalog registration %s: HTTP %d: %s", key, resp.StatusCode, answer.Error)
	}
	if answer.ID == "" {
		return "", fmt.Errorf("catalog registration %s: HTTP %d without an id", key, resp.StatusCode)
	}
	return answer.ID, nil
}

// registerInCatalog is step 6's registration (CONTRACT.md, "The model catalog"): with a
// catalog, no conflict and a status whose catalog is not of the current generation, it
// registers the generation and sets status["catalog"] to {generation, key, registration}.
// status is the computed status (computeStatus keeps the stored catalog). An error of the
// catalog is returned (the key is requeued with backoff; the status is not written).
func (r *ModelServiceReconciler) registerInCatalog(ctx context.Context, ms *unstructured.Unstructured, spec modelServiceSpec,
	conflict string, status map[string]interface{}) error {
	if r.Catalog == nil || conflict != "" {
		return nil
	}
	generation := ms.GetGeneration()
	if stored, ok := status["catalog"].(map[string]interface{}); ok {
		if g, _ := stored["generation"].(int64); g == generation {
			return nil
		}
	}
	key := catalogRequestKey(ms)
	url, _ := status["url"].(string)
	id, err := r.Catalog.register(ctx, key, catalogRegistration{
		Name: ms.GetNamespace() + "/" + ms.GetName(), Model: spec.Model, Image: spec.Image, Endpoint: url,
	})
	if err != nil {
		return err
	}
	logf.FromContext(ctx).Info("Registered in catalog", "key", key, "registration", id)
	status["catalog"] = map[string]interface{}{"generation": generation, "key": key, "registration": id}
	return nil
}

// storedCatalog is ms's status.catalog as stored (nil: none), which computeStatus keeps.
func storedCatalog(ms *unstructured.Unstructured) map[string]interface{} {
	c, ok, _ := unstructured.NestedMap(ms.Object, "status", "catalog")
	if !ok {
		return nil
	}
	return c
}
