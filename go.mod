module github.com/aguitest/aguitest

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/sebdah/goldie/v2 v2.8.0
	github.com/stretchr/testify v1.12.1
	github.com/wI2L/jsondiff v0.7.1
	go.yaml.in/yaml/v3 v3.0.6
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/sergi/go-diff v1.0.0 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
)
