module modeldock.io/apiproxy

go 1.24
