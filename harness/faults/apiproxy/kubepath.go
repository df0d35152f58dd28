package main

import (
	"net/http"
	"net/url"
	"strings"
)

// RequestInfo is what the proxy knows of one Kubernetes API request, read from its method,
// path and query alone, the way kube-apiserver's RequestInfoFactory reads them
// (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go).
type RequestInfo struct {
	// Resource is false for non-resource paths (/version, /healthz, /openapi/v2) and for
	// discovery (/api, /apis, /apis/apps/v1); then only Verb and Path are set.
	Resource    bool   `json:"-"`
	Verb        string `json:"verb"` // get list watch create update patch delete deletecollection, or the lowercased HTTP method of a non-resource request
	APIGroup    string `json:"group,omitempty"`
	APIVersion  string `json:"version,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	ResourceID  string `json:"resource,omitempty"` // plural lowercase: "deployments"
	Subresource string `json:"subresource,omitempty"`
	Name        string `json:"name,omitempty"`
	Path        string `json:"path"`
}

// namespaceSubresources are the subresources of a Namespace object itself:
// /api/v1/namespaces/{name}/status is the status of Namespace {name}, not a resource "status"
// inside it.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// ParseRequest classifies a request by method and URL. It never fails: what it cannot read as
// a resource request is a non-resource request.
func ParseRequest(method string, u *url.URL) RequestInfo {
	info := RequestInfo{Path: u.Path, Verb: strings.ToLower(method)}
	parts := splitPath(u.Path)
	switch {
	case len(parts) >= 1 && parts[0] == "api":
		parts = parts[1:] // core group ""
	case len(parts) >= 2 && parts[0] == "apis":
		info.APIGroup = parts[1]
		parts = parts[2:]
	default:
		return info
	}
	if len(parts) < 2 { // /api, /api/v1, /apis/apps, /apis/apps/v1: discovery
		return info
	}
	info.APIVersion = parts[0]
	parts = parts[1:]
	info.Resource = true

	watchPath := false
	if parts[0] == "watch" { // the deprecated /api/v1/watch/... form
		watchPath = true
		parts = parts[1:]
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	if len(parts) >= 1 {
		info.ResourceID = parts[0]
	}
	if len(parts) >= 2 {
		info.Name = parts[1]
	}
	if len(parts) >= 3 {
		info.Subresource = parts[2]
	}
	if info.ResourceID == "namespaces" && info.Namespace != "" && info.Name == info.Namespace {
		info.Namespace = "" // /api/v1/namespaces/x is the Namespace x, which is cluster-scoped
	}

	query := u.Query()
	switch method {
	case http.MethodGet, http.MethodHead:
		info.Verb = "get"
		if info.Name == "" {
			info.Verb = "list"
		}
		if watchPath || isWatch(query) {
			info.Verb = "watch"
		}
	case http.MethodPost:
		info.Verb = "create"
	case http.MethodPut:
		info.Verb = "update"
	case http.MethodPatch:
		info.Verb = "patch"
	case http.MethodDelete:
		info.Verb = "delete"
		if info.Name == "" {
			info.Verb = "deletecollection"
		}
	}
	// A list or watch of one object by field selector names it, as the API server does.
	if (info.Verb == "list" || info.Verb == "watch") && info.Name == "" {
		for _, term := range strings.Split(query.Get("fieldSelector"), ",") {
			if v, ok := strings.CutPrefix(term, "metadata.name="); ok {
				info.Name = v
			} else if v, ok := strings.CutPrefix(term, "metadata.name=="); ok {
				info.Name = v
			}
		}
	}
	return info
}

// isWatch: the API server treats any value of ?watch= but "false" and "0" as a watch.
func isWatch(q url.Values) bool {
	values, ok := q["watch"]
	if !ok || len(values) == 0 {
		return false
	}
	switch strings.ToLower(values[0]) {
	case "false", "0":
		return false
	}
	return true
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
