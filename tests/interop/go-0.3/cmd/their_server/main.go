// Command their_server is the demo echo agent of tests/interop/CHECKS.md served by the
// official Go A2A SDK at its v0.3 release line (github.com/a2aproject/a2a-go v0.3.15,
// protocol 0.3), with every byte on the wire produced by the SDK.
//
//	their_server --port P [--host 127.0.0.1]
//
// Serves, on 127.0.0.1 only, protocol 0.3 only:
//
//	http://HOST:P/.well-known/agent-card.json   the v0.3 Agent Card (a2asrv.NewStaticAgentCardHandler)
//	http://HOST:P/a2a/jsonrpc                   JSON-RPC (a2asrv.NewJSONRPCHandler)
//	HOST:P+1                                    gRPC a2a.v1.A2AService (a2agrpc.NewHandler)
//
// v0.3.15 has no HTTP+JSON: a2asrv has only the JSON-RPC handler and a2aclient only the
// JSON-RPC and gRPC transports (its TCK server says "TODO: serve REST endpoint").
//
// The card is the v0.3 shape: protocolVersion "0.3.0" (a2a.Version), url + preferredTransport
// JSONRPC, and additionalInterfaces listing JSON-RPC and gRPC. The gRPC url is the bare
// target "HOST:P+1", as the SDK's examples/helloworld/server/grpc publishes it (and as its
// client hands it to grpc.NewClient unchanged).
//
// Push notifications: a2asrv.WithPushNotifications with the SDK's push.NewInMemoryStore and
// push.NewHTTPPushSender (no URL filter, so 127.0.0.1 webhooks work).
//
// Prints READY on stdout once both listeners accept connections.
//
// Behaviour (CHECKS.md):
//
//	need-input     -> input-required with a question; a follow-up on that task completes it
//	                  with one artifact echoing the text
//	slow           -> working, then three chunks of artifact "slow" ("one ", "two ", "three",
//	                  append false/true/true, the last with lastChunk), 0.5 s apart, then completed
//	message-only   -> a direct Message reply, no task
//	a file part    -> completed, artifact "file": "received N bytes sha256 HEX" and the same file
//	with bytes        back (a2a.FileBytes.Bytes is the base64 text in this release, so the agent
//	                  decodes it with base64.StdEncoding, as a user of the SDK would)
//	anything else  -> completed task with artifact "echo" echoing the text
package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2agrpc"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
	"github.com/a2aproject/a2a-go/a2asrv/push"
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
		if t, ok := p.(a2a.TextPart); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// fileOf returns the first file part with bytes of the message.
func fileOf(m *a2a.Message) (a2a.FileBytes, bool) {
	if m == nil {
		return a2a.FileBytes{}, false
	}
	for _, p := range m.Parts {
		if fp, ok := p.(a2a.FilePart); ok {
			if fb, ok := fp.File.(a2a.FileBytes); ok {
				return fb, true
			}
		}
	}
	return a2a.FileBytes{}, false
}

func artifactEvent(reqCtx *a2asrv.RequestContext, id string, appendChunk, last bool, parts ...a2a.Part) *a2a.TaskArtifactUpdateEvent {
	ev := a2a.NewArtifactEvent(reqCtx, parts...)
	ev.Artifact.ID = a2a.ArtifactID(id)
	ev.Artifact.Name = id
	ev.Append = appendChunk
	ev.LastChunk = last
	return ev
}

func status(reqCtx *a2asrv.RequestContext, state a2a.TaskState, msg *a2a.Message, final bool) *a2a.TaskStatusUpdateEvent {
	ev := a2a.NewStatusUpdateEvent(reqCtx, state, msg)
	ev.Final = final
	return ev
}

func (echoAgent) Execute(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := textOf(reqCtx.Message)
	write := func(ev a2a.Event) error { return q.Write(ctx, ev) }
	completed := func() error { return write(status(reqCtx, a2a.TaskStateCompleted, nil, true)) }

	// A follow-up on a task that asked for input finishes it.
	if reqCtx.StoredTask != nil {
		if err := write(artifactEvent(reqCtx, "echo", false, true, a2a.TextPart{Text: text})); err != nil {
			return err
		}
		return completed()
	}

	if text == "message-only" {
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.TextPart{Text: "message-only"})
		msg.ContextID = reqCtx.ContextID
		return write(msg)
	}

	// The first event of a task-mode run is the Task itself.
	if err := write(a2a.NewSubmittedTask(reqCtx, reqCtx.Message)); err != nil {
		return err
	}

	if file, ok := fileOf(reqCtx.Message); ok {
		raw, err := base64.StdEncoding.DecodeString(file.Bytes)
		if err != nil {
			msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, reqCtx,
				a2a.TextPart{Text: fmt.Sprintf("file bytes are not base64 (%d chars): %v", len(file.Bytes), err)})
			return write(status(reqCtx, a2a.TaskStateFailed, msg, true))
		}
		sum := sha256.Sum256(raw)
		said := fmt.Sprintf("received %d bytes sha256 %s", len(raw), hex.EncodeToString(sum[:]))
		back := a2a.FilePart{File: a2a.FileBytes{
			FileMeta: a2a.FileMeta{Name: file.Name, MimeType: file.MimeType},
			Bytes:    base64.StdEncoding.EncodeToString(raw),
		}}
		if err := write(artifactEvent(reqCtx, "file", false, true, a2a.TextPart{Text: said}, back)); err != nil {
			return err
		}
		return completed()
	}

	switch text {
	case "need-input":
		question := a2a.NewMessageForTask(a2a.MessageRoleAgent, reqCtx, a2a.TextPart{Text: "What should I echo?"})
		return write(status(reqCtx, a2a.TaskStateInputRequired, question, true))
	case "slow":
		if err := write(status(reqCtx, a2a.TaskStateWorking, nil, false)); err != nil {
			return err
		}
		for i, chunk := range slowChunks {
			if i > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(chunkGap):
				}
			}
			if err := write(artifactEvent(reqCtx, "slow", i > 0, i == len(slowChunks)-1, a2a.TextPart{Text: chunk})); err != nil {
				return err
			}
		}
		return completed()
	default:
		if err := write(artifactEvent(reqCtx, "echo", false, true, a2a.TextPart{Text: text})); err != nil {
			return err
		}
		return completed()
	}
}

func (echoAgent) Cancel(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	return q.Write(ctx, status(reqCtx, a2a.TaskStateCanceled, nil, true))
}

func buildCard(host string, port int) *a2a.AgentCard {
	jsonrpcURL := fmt.Sprintf("http://%s:%d/a2a/jsonrpc", host, port)
	grpcURL := fmt.Sprintf("%s:%d", host, port+1)
	return &a2a.AgentCard{
		Name:               "a2a-go v0.3 echo",
		Description:        "Echoes text back: need-input asks a question, slow streams three chunks, message-only replies with a message, a file is echoed with its digest.",
		Version:            "0.1.0",
		ProtocolVersion:    string(a2a.Version),
		URL:                jsonrpcURL,
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		AdditionalInterfaces: []a2a.AgentInterface{
			{Transport: a2a.TransportProtocolJSONRPC, URL: jsonrpcURL},
			{Transport: a2a.TransportProtocolGRPC, URL: grpcURL},
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true, PushNotifications: true},
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
	handler := a2asrv.NewHandler(echoAgent{},
		a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: 5 * time.Second})),
	)

	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/a2a/jsonrpc", a2asrv.NewJSONRPCHandler(handler))

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
