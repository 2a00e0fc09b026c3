// Command their_server is the demo echo agent served by the official Go A2A SDK
// (github.com/a2aproject/a2a-go/v2 v2.3.1): the interop counterpart of
// `a2a-wire serve`, with every byte on the wire produced by the SDK.
//
//	their_server --port P [--host 127.0.0.1]
//
// Serves, on 127.0.0.1 only, protocol 1.0 only:
//
//	http://HOST:P/.well-known/agent-card.json   the Agent Card
//	http://HOST:P/a2a/jsonrpc                   JSON-RPC (a2asrv.NewJSONRPCHandler)
//	http://HOST:P/a2a/rest                      HTTP+JSON (a2asrv.NewRESTHandler; /message:send, ...)
//	HOST:P+1                                    gRPC lf.a2a.v1.A2AService (a2agrpc.NewHandler)
//
// Prints READY on stdout once both listeners accept connections.
//
// Behaviour (the same as a2a-wire's demo agent):
//
//	need-input    -> TASK_STATE_INPUT_REQUIRED with a question; a follow-up on
//	                 that task completes it with one artifact echoing the text
//	slow          -> working, then three chunks of artifact "slow" ("one ",
//	                 "two ", "three", append false/true/true), then completed
//	message-only  -> a direct Message reply, no task
//	anything else -> completed task with artifact "echo" echoing the text
//
// v0.3 is not served: the SDK's v0.3 layer (a2acompat/a2av0) has JSON-RPC and
// REST adapters and a separate gRPC package, but the Go rows of the matrix
// cover protocol 1.0 only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"iter"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
)

var slowChunks = []string{"one ", "two ", "three"}

const chunkGap = 200 * time.Millisecond

// echoAgent implements a2asrv.AgentExecutor.
type echoAgent struct{}

func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func artifactEvent(execCtx *a2asrv.ExecutorContext, id, text string, appendChunk, last bool) *a2a.TaskArtifactUpdateEvent {
	ev := a2a.NewArtifactEvent(execCtx, a2a.NewTextPart(text))
	ev.Artifact.ID = a2a.ArtifactID(id)
	ev.Artifact.Name = id
	ev.Append = appendChunk
	ev.LastChunk = last
	return ev
}

func (echoAgent) Execute(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := textOf(execCtx.Message)
		status := func(state a2a.TaskState, msg *a2a.Message) bool {
			return yield(a2a.NewStatusUpdateEvent(execCtx, state, msg), nil)
		}

		// A follow-up on a task that asked for input finishes it.
		if execCtx.StoredTask != nil {
			if !yield(artifactEvent(execCtx, "echo", text, false, true), nil) {
				return
			}
			status(a2a.TaskStateCompleted, nil)
			return
		}

		if text == "message-only" {
			msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("message-only"))
			msg.ContextID = execCtx.ContextID
			yield(msg, nil)
			return
		}

		// The first event of a task-mode run must be the Task itself.
		if !yield(a2a.NewSubmittedTask(execCtx, execCtx.Message), nil) {
			return
		}

		switch text {
		case "need-input":
			question := a2a.NewMessageForTask(a2a.MessageRoleAgent, execCtx, a2a.NewTextPart("What should I echo?"))
			status(a2a.TaskStateInputRequired, question)
		case "slow":
			if !status(a2a.TaskStateWorking, nil) {
				return
			}
			for i, chunk := range slowChunks {
				if i > 0 {
					select {
					case <-ctx.Done():
						yield(nil, ctx.Err())
						return
					case <-time.After(chunkGap):
					}
				}
				if !yield(artifactEvent(execCtx, "slow", chunk, i > 0, i == len(slowChunks)-1), nil) {
					return
				}
			}
			status(a2a.TaskStateCompleted, nil)
		default:
			if !yield(artifactEvent(execCtx, "echo", text, false, true), nil) {
				return
			}
			status(a2a.TaskStateCompleted, nil)
		}
	}
}

func (echoAgent) Cancel(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCanceled, nil), nil)
	}
}

func buildCard(host string, port int) *a2a.AgentCard {
	base := fmt.Sprintf("http://%s:%d", host, port)
	iface := func(url string, binding a2a.TransportProtocol) *a2a.AgentInterface {
		return &a2a.AgentInterface{URL: url, ProtocolBinding: binding, ProtocolVersion: "1.0"}
	}
	return &a2a.AgentCard{
		Name:        "a2a-go echo",
		Description: "Echoes text back: need-input asks a question, slow streams three chunks, message-only replies with a message.",
		Version:     "0.1.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			iface(base+"/a2a/jsonrpc", a2a.TransportProtocolJSONRPC),
			iface(base+"/a2a/rest", a2a.TransportProtocolHTTPJSON),
			iface(fmt.Sprintf("%s:%d", host, port+1), a2a.TransportProtocolGRPC),
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{
			ID:          "echo",
			Name:        "Echo",
			Description: "Echoes the text of a message as an artifact.",
			Tags:        []string{"echo", "demo"},
			Examples:    []string{"hello", "need-input", "slow", "message-only"},
		}},
	}
}

func run() error {
	port := flag.Int("port", 0, "HTTP port (gRPC listens on port+1)")
	host := flag.String("host", "127.0.0.1", "loopback address to listen on")
	flag.Parse()
	if *port <= 0 || *port >= 65535 {
		return errors.New("usage: their_server --port P   (gRPC then listens on P+1)")
	}
	if *host != "127.0.0.1" && *host != "localhost" {
		return errors.New("--host must be a loopback address")
	}

	card := buildCard(*host, *port)
	// The SDK's default store scopes tasks to the authenticated caller and
	// refuses ListTasks (ErrUnauthenticated) when there is none; this test
	// server has no authentication, so every caller is the same user.
	store := taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{
		Authenticator: func(context.Context) (string, error) { return "anonymous", nil },
	})
	handler := a2asrv.NewHandler(echoAgent{},
		a2asrv.WithTaskStore(store),
		a2asrv.WithCapabilityChecks(&card.Capabilities),
	)

	mux := http.NewServeMux()
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/a2a/jsonrpc", a2asrv.NewJSONRPCHandler(handler))
	mux.Handle("/a2a/rest/", http.StripPrefix("/a2a/rest", a2asrv.NewRESTHandler(handler)))

	httpLn, err := net.Listen("tcp", fmt.Sprintf("%s:%d", *host, *port))
	if err != nil {
		return fmt.Errorf("HTTP listen: %w", err)
	}
	grpcLn, err := net.Listen("tcp", fmt.Sprintf("%s:%d", *host, *port+1))
	if err != nil {
		return fmt.Errorf("gRPC listen: %w", err)
	}

	grpcServer := grpc.NewServer()
	a2agrpc.NewHandler(handler).RegisterWith(grpcServer)
	httpServer := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	errs := make(chan error, 2)
	go func() { errs <- fmt.Errorf("gRPC server: %w", grpcServer.Serve(grpcLn)) }()
	go func() { errs <- fmt.Errorf("HTTP server: %w", httpServer.Serve(httpLn)) }()
	fmt.Println("READY")

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case err = <-errs:
	case <-sig:
		err = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = httpServer.Shutdown(ctx)
	grpcServer.Stop()
	return err
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "their_server:", err)
		os.Exit(1)
	}
}
