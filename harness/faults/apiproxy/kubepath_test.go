package main

import (
	"net/url"
	"testing"
)

func TestParseRequest(t *testing.T) {
	cases := []struct {
		method, target string
		want           RequestInfo
	}{
		{"GET", "/api/v1/namespaces/ns/services/web",
			RequestInfo{Resource: true, Verb: "get", APIVersion: "v1", Namespace: "ns", ResourceID: "services", Name: "web"}},
		{"GET", "/api/v1/namespaces/ns/services",
			RequestInfo{Resource: true, Verb: "list", APIVersion: "v1", Namespace: "ns", ResourceID: "services"}},
		{"GET", "/api/v1/namespaces/ns/services?watch=true&resourceVersion=5",
			RequestInfo{Resource: true, Verb: "watch", APIVersion: "v1", Namespace: "ns", ResourceID: "services"}},
		{"GET", "/api/v1/namespaces/ns/services?watch=1",
			RequestInfo{Resource: true, Verb: "watch", APIVersion: "v1", Namespace: "ns", ResourceID: "services"}},
		{"GET", "/api/v1/namespaces/ns/services?watch=false",
			RequestInfo{Resource: true, Verb: "list", APIVersion: "v1", Namespace: "ns", ResourceID: "services"}},
		{"GET", "/api/v1/namespaces/ns/services?watch=0",
			RequestInfo{Resource: true, Verb: "list", APIVersion: "v1", Namespace: "ns", ResourceID: "services"}},
		{"GET", "/api/v1/watch/namespaces/ns/services",
			RequestInfo{Resource: true, Verb: "watch", APIVersion: "v1", Namespace: "ns", ResourceID: "services"}},
		{"GET", "/api/v1/namespaces/ns/services?watch=true&fieldSelector=metadata.name%3Dweb",
			RequestInfo{Resource: true, Verb: "watch", APIVersion: "v1", Namespace: "ns", ResourceID: "services", Name: "web"}},
		{"POST", "/apis/apps/v1/namespaces/ns/deployments",
			RequestInfo{Resource: true, Verb: "create", APIGroup: "apps", APIVersion: "v1", Namespace: "ns", ResourceID: "deployments"}},
		{"GET", "/apis/apps/v1/deployments?watch=true",
			RequestInfo{Resource: true, Verb: "watch", APIGroup: "apps", APIVersion: "v1", ResourceID: "deployments"}},
		{"PUT", "/apis/modeldock.io/v1alpha1/namespaces/ns/modelservices/demo/status",
			RequestInfo{Resource: true, Verb: "update", APIGroup: "modeldock.io", APIVersion: "v1alpha1", Namespace: "ns", ResourceID: "modelservices", Name: "demo", Subresource: "status"}},
		{"PATCH", "/apis/modeldock.io/v1alpha1/namespaces/ns/modelservices/demo",
			RequestInfo{Resource: true, Verb: "patch", APIGroup: "modeldock.io", APIVersion: "v1alpha1", Namespace: "ns", ResourceID: "modelservices", Name: "demo"}},
		{"DELETE", "/apis/apps/v1/namespaces/ns/deployments/web",
			RequestInfo{Resource: true, Verb: "delete", APIGroup: "apps", APIVersion: "v1", Namespace: "ns", ResourceID: "deployments", Name: "web"}},
		{"DELETE", "/api/v1/namespaces/ns/configmaps",
			RequestInfo{Resource: true, Verb: "deletecollection", APIVersion: "v1", Namespace: "ns", ResourceID: "configmaps"}},
		// cluster-scoped
		{"GET", "/api/v1/namespaces",
			RequestInfo{Resource: true, Verb: "list", APIVersion: "v1", ResourceID: "namespaces"}},
		{"GET", "/api/v1/namespaces/ns",
			RequestInfo{Resource: true, Verb: "get", APIVersion: "v1", ResourceID: "namespaces", Name: "ns"}},
		{"PUT", "/api/v1/namespaces/ns/finalize",
			RequestInfo{Resource: true, Verb: "update", APIVersion: "v1", ResourceID: "namespaces", Name: "ns", Subresource: "finalize"}},
		{"GET", "/api/v1/nodes/n1/status",
			RequestInfo{Resource: true, Verb: "get", APIVersion: "v1", ResourceID: "nodes", Name: "n1", Subresource: "status"}},
		{"GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/modelservices.modeldock.io",
			RequestInfo{Resource: true, Verb: "get", APIGroup: "apiextensions.k8s.io", APIVersion: "v1", ResourceID: "customresourcedefinitions", Name: "modelservices.modeldock.io"}},
		{"GET", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/lock",
			RequestInfo{Resource: true, Verb: "get", APIGroup: "coordination.k8s.io", APIVersion: "v1", Namespace: "ns", ResourceID: "leases", Name: "lock"}},
		// discovery and non-resource paths
		{"GET", "/api", RequestInfo{Verb: "get"}},
		{"GET", "/api/v1", RequestInfo{Verb: "get"}},
		{"GET", "/apis/apps/v1", RequestInfo{Verb: "get", APIGroup: "apps"}},
		{"GET", "/version", RequestInfo{Verb: "get"}},
		{"GET", "/openapi/v2", RequestInfo{Verb: "get"}},
		{"POST", "/healthz", RequestInfo{Verb: "post"}},
	}
	for _, c := range cases {
		u, err := url.Parse(c.target)
		if err != nil {
			t.Fatal(err)
		}
		got := ParseRequest(c.method, u)
		want := c.want
		want.Path = u.Path
		if got != want {
			t.Errorf("%s %s:\n got  %+v\n want %+v", c.method, c.target, got, want)
		}
	}
}
