module chronicle

go 1.26

require (
	github.com/chzyer/readline v1.5.1
	github.com/klauspost/compress v1.20.4
	github.com/stretchr/testify v1.11.1
	go.etcd.io/bbolt v1.4.3
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/sys v0.29.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
