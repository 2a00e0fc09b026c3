module a2a-wire-interop-go03

go 1.24.4

require (
	github.com/a2aproject/a2a-go v0.3.15
	github.com/google/uuid v1.6.0
	google.golang.org/grpc v1.73.0
)

require (
	golang.org/x/net v0.41.0 // indirect
	golang.org/x/sync v0.15.0 // indirect
	golang.org/x/sys v0.33.0 // indirect
	golang.org/x/text v0.26.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20250715232539-7130f93afb79 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250715232539-7130f93afb79 // indirect
	google.golang.org/protobuf v1.36.6 // indirect
)
