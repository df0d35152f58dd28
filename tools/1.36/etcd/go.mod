module modeldock.io/tools/1.36/etcd

// Wrapper module that builds the etcd server binary for Kubernetes 1.36 (the etcd version
// its go.mod requires), the same way as tools/etcd does for 1.34.

go 1.26.0

require go.etcd.io/etcd/server/v3 v3.6.8
