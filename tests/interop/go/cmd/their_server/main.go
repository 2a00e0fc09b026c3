// Command their_server is the demo echo agent served by the official Go A2A SDK
// (github.com/a2aproject/a2a-go/v2 v2.3.1): the interop counterpart of
// `a2a-wire serve`, with every byte on the wire produced by the SDK.
//
//	their_server --port P [--host 127.0.0.1]
//
// Serves, on 127.0.0.1 only, protocols 1.0 and 0.3 from one a2asrv request
// handler:
//
//	http://HOST:P/.well-known/agent-card.json   the Agent Card (a2av0.NewStaticAgentCardProducer:
//	                                            a v1.0 card that also carries the v0.3 fields
//	                                            url/preferredTransport/additionalInterfaces)
//	http://HOST:P/a2a/jsonrpc                   JSON-RPC 1.0 (a2asrv.NewJSONRPCHandler)
//	http://HOST:P/a2a/rest                      HTTP+JSON 1.0 (a2asrv.NewRESTHandler; /message:send, ...)
//	http://HOST:P/a2a/v03/jsonrpc               JSON-RPC 0.3 (a2av0.NewJSONRPCHandler)
//	http://HOST:P/a2a/v03/rest                  HTTP+JSON 0.3 (a2av0.NewRESTHandler), see below
//	HOST:P+1                                    gRPC: lf.a2a.v1.A2AService (1.0, a2agrpc/v1) and
//	                                            a2a.v1.A2AService (0.3, a2agrpc/v0) on one server
//
// The v0.3 REST handler routes /message:send, /tasks/{id}, ... with no /v1
// prefix (like its v1.0 sibling), and the SDK's v0.3 REST client sends them so.
// The v0.3 spec's routes are /v1/message:send, ... (what a2a-sdk 0.3 and
// a2a-wire use). So the one handler is mounted under both /a2a/v03/rest/ and
// /a2a/v03/rest/v1/: the card lists /a2a/v03/rest, and either client finds it.
//
// Prints READY on stdout once both listeners accept connections.
//
// Behaviour (tests/interop/CHECKS.md):
//
//	need-input    -> TASK_STATE_INPUT_REQUIRED with a question; a follow-up on
//	                 that task completes it with one artifact echoing the text
//	slow          -> working, then three chunks of artifact "slow" ("one ",
//	                 "two ", "three", append false/true/true), 0.5 s apart, then completed
//	message-only  -> a direct Message reply, no task
//	a file part   -> completed task with artifact "file": a text part
//	 with bytes      "received N bytes sha256 HEX", then a file part with the
//	                 same bytes, filename and media type
//	anything else -> completed task with artifact "echo" echoing the text
//
// Push notifications: capabilities.pushNotifications is true, with the SDK's
// in-memory config store (push.NewInMemoryStore) and HTTP sender
// (push.NewHTTPPushSender), which POSTs every event of the task, as a v1.0
// StreamResponse, to any URL (127.0.0.1 included).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
)

var slowChunks = []string{"one ", "two ", "three"}

const chunkGap = 500 * time.Millisecond

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

// filePart is the first part of the message carrying file bytes, if any.
func filePart(m *a2a.Message) *a2a.Part {
	if m == nil {
		return nil
	}
	for _, p := range m.Parts {
		if _, ok := p.Content.(a2a.Raw); ok {
			return p
		}
	}
	return nil
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

		file := filePart(execCtx.Message)
		if file == nil && text == "message-only" {
			msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("message-only"))
			msg.ContextID = execCtx.ContextID
			yield(msg, nil)
			return
		}

		// The first event of a task-mode run must be the Task itself.
		if !yield(a2a.NewSubmittedTask(execCtx, execCtx.Message), nil) {
			return
		}

		switch {
		case file != nil:
			raw := file.Raw()
			sum := sha256.Sum256(raw)
			back := a2a.NewRawPart(raw)
			back.Filename = file.Filename
			back.MediaType = file.MediaType
			ev := a2a.NewArtifactEvent(execCtx,
				a2a.NewTextPart(fmt.Sprintf("received %d bytes sha256 %s", len(raw), hex.EncodeToString(sum[:]))),
				back)
			ev.Artifact.ID = "file"
			ev.Artifact.Name = "file"
			ev.LastChunk = true
			if !yield(ev, nil) {
				return
			}
			status(a2a.TaskStateCompleted, nil)
		case text == "need-input":
			question := a2a.NewMessageForTask(a2a.MessageRoleAgent, execCtx, a2a.NewTextPart("What should I echo?"))
			status(a2a.TaskStateInputRequired, question)
		case text == "slow":
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
	iface := func(url string, binding a2a.TransportProtocol, version a2a.ProtocolVersion) *a2a.AgentInterface {
		return &a2a.AgentInterface{URL: url, ProtocolBinding: binding, ProtocolVersion: version}
	}
	grpcTarget := fmt.Sprintf("%s:%d", host, port+1)
	return &a2a.AgentCard{
		Name:        "a2a-go echo",
		Description: "Echoes text back: need-input asks a question, slow streams three chunks, message-only replies with a message, a file part is answered with its size, sha256 and bytes.",
		Version:     "0.1.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			iface(base+"/a2a/jsonrpc", a2a.TransportProtocolJSONRPC, a2a.Version),
			iface(base+"/a2a/rest", a2a.TransportProtocolHTTPJSON, a2a.Version),
			iface(grpcTarget, a2a.TransportProtocolGRPC, a2a.Version),
			// The first v0.3 entry becomes the v0.3 card's url/preferredTransport.
			iface(base+"/a2a/v03/jsonrpc", a2a.TransportProtocolJSONRPC, a2av0.Version),
			iface(base+"/a2a/v03/rest", a2a.TransportProtocolHTTPJSON, a2av0.Version),
			iface(grpcTarget, a2a.TransportProtocolGRPC, a2av0.Version),
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true, PushNotifications: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{
			ID:          "echo",
			Name:        "Echo",
			Description: "Echoes the text of a message as an artifact.",
			Tags:        []string{"echo", "demo"},
			Examples:    []string{"hello", "need-input", "slow", "message-only", "file"},
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
		a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: 10 * time.Second})),
	)

	mux := http.NewServeMux()
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)))
	mux.Handle("/a2a/jsonrpc", a2asrv.NewJSONRPCHandler(handler))
	mux.Handle("/a2a/rest/", http.StripPrefix("/a2a/rest", a2asrv.NewRESTHandler(handler)))
	mux.Handle("/a2a/v03/jsonrpc", a2av0.NewJSONRPCHandler(handler))
	restV03 := a2av0.NewRESTHandler(handler)
	mux.Handle("/a2a/v03/rest/v1/", http.StripPrefix("/a2a/v03/rest/v1", restV03))
	mux.Handle("/a2a/v03/rest/", http.StripPrefix("/a2a/v03/rest", restV03))

	httpLn, err := net.Listen("tcp", fmt.Sprintf("%s:%d", *host, *port))
	if err != nil {
		return fmt.Errorf("HTTP listen: %w", err)
	}
	grpcLn, err := net.Listen("tcp", fmt.Sprintf("%s:%d", *host, *port+1))
	if err != nil {
		return fmt.Errorf("gRPC listen: %w", err)
	}

	grpcServer := grpc.NewServer()
	a2agrpc.NewHandler(handler).RegisterWith(grpcServer)   // lf.a2a.v1.A2AService (1.0)
	a2agrpcv0.NewHandler(handler).RegisterWith(grpcServer) // a2a.v1.A2AService (0.3)
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
