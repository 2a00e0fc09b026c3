// Command their_client drives an A2A server (normally a2a-wire) with the official Go A2A
// SDK client at its v0.3 release line (github.com/a2aproject/a2a-go v0.3.15, protocol 0.3).
//
//	their_client --url http://127.0.0.1:PORT [--server a2a-wire] [--timeout 20]
//	             [--binding JSONRPC|GRPC|HTTP+JSON]... [--version 0.3|1.0]...
//
// It runs the checks of tests/interop/CHECKS.md (card, send, stream, input_required, get,
// cancel_completed, get_unknown, message_only, file, push, resubscribe; list is 1.0 only)
// on each binding the release's client has, JSON-RPC and gRPC, at version 0.3, and prints
// one JSON object per check:
//
//	{"sdk":"go-0.3","client":"go-0.3","server":"a2a-wire","binding":"GRPC",
//	 "version":"0.3","check":"send","ok":true,"detail":"..."}
//
// a2aclient v0.3.15 has no HTTP+JSON transport and speaks no 1.0: those rows are printed
// (every check ok:false, saying so) only when asked for with --binding / --version.
// A failing check never stops the others; the exit status is 0 whatever the results.
// Every check runs under its own deadline (--timeout, seconds or a Go duration).
//
// How the SDK is steered to one interface: a2aclient.Factory.CreateFromCard tries the card's
// url/preferredTransport first and then its additionalInterfaces, so each client is made from
// a copy of the card whose url and preferredTransport are the interface under test and whose
// additionalInterfaces are empty. The gRPC url is handed by the SDK to grpc.NewClient as it
// is (the card must give the bare target host:port). Expected errors are recognised with
// errors.Is against a2a.ErrTaskNotFound / a2a.ErrTaskNotCancelable, which the JSON-RPC
// transport maps from the codes -32001/-32002 and the gRPC one from NOT_FOUND /
// FAILED_PRECONDITION.
//
// File bytes: a2a.FileBytes.Bytes is the base64 text in this release; the client sends
// base64(FILE_BYTES) and base64-decodes what comes back. On gRPC the SDK's pbconv copies that
// text as is into FilePart.file_with_bytes (bytes field), it does not decode it.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

const sdkName = "go-0.3"

var (
	supportedBindings = []string{"JSONRPC", "GRPC"}
	supportedVersions = []string{"0.3"}
	// FILE_BYTES of CHECKS.md: 32 bytes, not UTF-8, not base64 text.
	fileBytes  = []byte("a2a-wire \x00\x01\x02\xfe\xff file bytes \x89PNG\r\n")
	fileDigest = "received 32 bytes sha256 c623ddb6f664aa33b3176d5db240949c0cfa08cc35de1470e309eab0c90bde03"
)

type result struct {
	SDK     string `json:"sdk"`
	Client  string `json:"client"`
	Server  string `json:"server"`
	Binding string `json:"binding"`
	Version string `json:"version"`
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Detail  string `json:"detail"`
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// checkFailed is a check that ran to the end with a wrong answer.
type checkFailed struct{ msg string }

func (e *checkFailed) Error() string { return e.msg }

func failf(format string, args ...any) error { return &checkFailed{fmt.Sprintf(format, args...)} }

var sentinels = []struct {
	err  error
	name string
}{
	{a2a.ErrTaskNotFound, "TaskNotFound"}, {a2a.ErrTaskNotCancelable, "TaskNotCancelable"},
	{a2a.ErrPushNotificationNotSupported, "PushNotificationNotSupported"},
	{a2a.ErrUnsupportedOperation, "UnsupportedOperation"}, {a2a.ErrUnsupportedContentType, "ContentTypeNotSupported"},
	{a2a.ErrInvalidAgentResponse, "InvalidAgentResponse"}, {a2a.ErrParseError, "ParseError"},
	{a2a.ErrInvalidRequest, "InvalidRequest"}, {a2a.ErrMethodNotFound, "MethodNotFound"},
	{a2a.ErrInvalidParams, "InvalidParams"}, {a2a.ErrInternalError, "InternalError"},
	{a2a.ErrServerError, "ServerError"}, {a2a.ErrUnauthenticated, "Unauthenticated"},
	{a2a.ErrUnauthorized, "Unauthorized"},
	{context.DeadlineExceeded, "DEADLINE_EXCEEDED (no answer within the time limit)"},
	{context.Canceled, "CANCELED"},
}

// describe names the error the SDK produced, with the A2A sentinel it maps to.
func describe(err error) string {
	var cf *checkFailed
	if errors.As(err, &cf) {
		return cf.msg
	}
	kind := "unclassified"
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			kind = s.name
			break
		}
	}
	return fmt.Sprintf("%T [%s]: %v", err, kind, err)
}

// -- parts -------------------------------------------------------------------

func textOf(p a2a.Part) (string, bool) {
	switch v := p.(type) {
	case a2a.TextPart:
		return v.Text, true
	case *a2a.TextPart:
		return v.Text, true
	}
	return "", false
}

func fileOf(p a2a.Part) (a2a.FileBytes, bool) {
	var fp a2a.FilePart
	switch v := p.(type) {
	case a2a.FilePart:
		fp = v
	case *a2a.FilePart:
		fp = *v
	default:
		return a2a.FileBytes{}, false
	}
	switch f := fp.File.(type) {
	case a2a.FileBytes:
		return f, true
	case *a2a.FileBytes:
		return *f, true
	}
	return a2a.FileBytes{}, false
}

func partsText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if t, ok := textOf(p); ok {
			b.WriteString(t)
		}
	}
	return b.String()
}

func artifactText(t *a2a.Task) string {
	var b strings.Builder
	for _, a := range t.Artifacts {
		b.WriteString(partsText(a.Parts))
	}
	return b.String()
}

func userMessage(taskID a2a.TaskID, contextID string, parts ...a2a.Part) *a2a.MessageSendParams {
	m := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	m.TaskID = taskID
	m.ContextID = contextID
	return &a2a.MessageSendParams{Message: m}
}

func textMessage(text string) *a2a.MessageSendParams {
	return userMessage("", "", a2a.TextPart{Text: text})
}

// eventName is a short description of a stream event, for details.
func eventName(ev a2a.Event) string {
	switch v := ev.(type) {
	case *a2a.Task:
		return "task(" + string(v.Status.State) + ")"
	case *a2a.TaskStatusUpdateEvent:
		return fmt.Sprintf("status(%s,final=%t)", v.Status.State, v.Final)
	case *a2a.TaskArtifactUpdateEvent:
		text := ""
		if v.Artifact != nil {
			text = partsText(v.Artifact.Parts)
		}
		return fmt.Sprintf("artifact(%q,append=%t,last=%t)", text, v.Append, v.LastChunk)
	case *a2a.Message:
		return "message"
	}
	return fmt.Sprintf("%T", ev)
}

func eventTaskID(ev a2a.Event) a2a.TaskID {
	switch v := ev.(type) {
	case *a2a.Task:
		return v.ID
	case *a2a.TaskStatusUpdateEvent:
		return v.TaskID
	case *a2a.TaskArtifactUpdateEvent:
		return v.TaskID
	case *a2a.Message:
		return v.TaskID
	}
	return ""
}

// -- one binding x version ---------------------------------------------------

type options struct {
	url     string
	server  string
	timeout time.Duration
	http    *http.Client
}

type combo struct {
	opts     *options
	card     *a2a.AgentCard
	cardErr  error
	binding  string
	version  string
	client   *a2aclient.Client
	taskIDs  []a2a.TaskID          // completed tasks made here, for get/cancel
	expected map[a2a.TaskID]string // artifact text each one should have
}

func (c *combo) emit(check string, ok bool, detail string) {
	line, _ := json.Marshal(result{
		SDK: sdkName, Client: sdkName, Server: c.opts.server, Binding: c.binding,
		Version: c.version, Check: check, OK: ok, Detail: detail,
	})
	fmt.Println(string(line))
}

func (c *combo) run(check string, fn func(ctx context.Context) (string, error)) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.timeout)
	defer cancel()
	started := time.Now()
	type outcome struct {
		detail string
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		d, err := fn(ctx)
		done <- outcome{d, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(c.opts.timeout + 2*time.Second):
		// The SDK ignored the context: report and move on (the goroutine leaks).
		o = outcome{err: fmt.Errorf("no answer within %v (the call ignored its context)", c.opts.timeout)}
	}
	elapsed := fmt.Sprintf(" [%.2fs]", time.Since(started).Seconds())
	if o.err != nil {
		c.emit(check, false, describe(o.err)+elapsed)
	} else {
		c.emit(check, true, o.detail+elapsed)
	}
}

func (c *combo) need() (*a2aclient.Client, error) {
	if c.client == nil {
		return nil, failf("skipped: no client (card check failed)")
	}
	return c.client, nil
}

func (c *combo) anyTask() (a2a.TaskID, error) {
	if len(c.taskIDs) == 0 {
		return "", failf("skipped: no completed task to use (send/stream/input_required all failed)")
	}
	return c.taskIDs[0], nil
}

func (c *combo) sendTask(ctx context.Context, req *a2a.MessageSendParams) (*a2a.Task, error) {
	cl, err := c.need()
	if err != nil {
		return nil, err
	}
	res, err := cl.SendMessage(ctx, req)
	if err != nil {
		return nil, err
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		return nil, failf("expected a Task, got %T", res)
	}
	return task, nil
}

// -- checks ------------------------------------------------------------------

// v03Interfaces lists the card's v0.3 interfaces: url/preferredTransport, then additionalInterfaces.
func v03Interfaces(card *a2a.AgentCard) []a2a.AgentInterface {
	preferred := card.PreferredTransport
	if preferred == "" {
		preferred = a2a.TransportProtocolJSONRPC // the v0.3 default
	}
	var out []a2a.AgentInterface
	if card.URL != "" {
		out = append(out, a2a.AgentInterface{Transport: preferred, URL: card.URL})
	}
	return append(out, card.AdditionalInterfaces...)
}

func (c *combo) checkCard(ctx context.Context) (string, error) {
	if c.card == nil {
		return "", failf("agent card not fetched: %s", describe(c.cardErr))
	}
	if !strings.HasPrefix(c.card.ProtocolVersion, "0.3") {
		return "", failf("card protocolVersion %q, expected 0.3.x", c.card.ProtocolVersion)
	}
	var iface *a2a.AgentInterface
	var listed []string
	for _, i := range v03Interfaces(c.card) {
		listed = append(listed, fmt.Sprintf("%s@%s", i.Transport, i.URL))
		if iface == nil && string(i.Transport) == c.binding {
			iface = &i
		}
	}
	if iface == nil {
		return "", failf("no %s interface in the card's url/additionalInterfaces; listed: %v", c.binding, listed)
	}
	if !c.card.Capabilities.Streaming {
		return "", failf("card does not declare capabilities.streaming")
	}
	sub := *c.card
	sub.URL = iface.URL
	sub.PreferredTransport = iface.Transport
	sub.AdditionalInterfaces = nil
	factory := a2aclient.NewFactory(
		a2aclient.WithDefaultsDisabled(),
		a2aclient.WithJSONRPCTransport(c.opts.http),
		a2aclient.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
	)
	cl, err := factory.CreateFromCard(ctx, &sub)
	if err != nil {
		return "", err
	}
	c.client = cl
	return fmt.Sprintf("%s %s (protocolVersion %s; listed %v)", iface.Transport, iface.URL, c.card.ProtocolVersion, listed), nil
}

func (c *combo) checkSend(ctx context.Context) (string, error) {
	task, err := c.sendTask(ctx, textMessage("hello"))
	if err != nil {
		return "", err
	}
	if task.Status.State != a2a.TaskStateCompleted {
		return "", failf("state %s, expected completed", task.Status.State)
	}
	c.taskIDs = append([]a2a.TaskID{task.ID}, c.taskIDs...)
	c.expected[task.ID] = "hello"
	if text := artifactText(task); text != "hello" || len(task.Artifacts) != 1 {
		return "", failf("artifact text %q in %d artifacts, expected 'hello' in 1", text, len(task.Artifacts))
	}
	return fmt.Sprintf("task %s %s, artifact %q", task.ID, task.Status.State, artifactText(task)), nil
}

func (c *combo) checkGet(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	tid, err := c.anyTask()
	if err != nil {
		return "", err
	}
	task, err := cl.GetTask(ctx, &a2a.TaskQueryParams{ID: tid})
	if err != nil {
		return "", err
	}
	if task.ID != tid {
		return "", failf("asked for %s, got task %q", tid, task.ID)
	}
	if task.Status.State != a2a.TaskStateCompleted {
		return "", failf("state %s, expected completed", task.Status.State)
	}
	if want := c.expected[tid]; artifactText(task) != want {
		return "", failf("artifact text %q, expected %q", artifactText(task), want)
	}
	return fmt.Sprintf("task %s %s, artifact %q", tid, task.Status.State, artifactText(task)), nil
}

// streamSummary follows the events of one stream of the `slow` task.
type streamSummary struct {
	kinds  []string
	chunks []*a2a.TaskArtifactUpdateEvent
	taskID a2a.TaskID
	final  a2a.TaskState
}

func (s *streamSummary) add(ev a2a.Event) {
	s.kinds = append(s.kinds, eventName(ev))
	if s.taskID == "" {
		s.taskID = eventTaskID(ev)
	}
	switch v := ev.(type) {
	case *a2a.Task:
		s.final = v.Status.State
	case *a2a.TaskStatusUpdateEvent:
		s.final = v.Status.State
	case *a2a.TaskArtifactUpdateEvent:
		s.chunks = append(s.chunks, v)
	}
}

func (s *streamSummary) text() string {
	var b strings.Builder
	for _, ch := range s.chunks {
		if ch.Artifact != nil {
			b.WriteString(partsText(ch.Artifact.Parts))
		}
	}
	return b.String()
}

func (c *combo) checkStream(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	var s streamSummary
	for ev, err := range cl.SendStreamingMessage(ctx, textMessage("slow")) {
		if err != nil {
			return "", fmt.Errorf("after events %v: %w", s.kinds, err)
		}
		s.add(ev)
	}
	var problems []string
	if len(s.chunks) != 3 {
		problems = append(problems, fmt.Sprintf("%d artifact updates, expected 3", len(s.chunks)))
	}
	var appends []bool
	ids := map[a2a.ArtifactID]bool{}
	for _, ch := range s.chunks {
		appends = append(appends, ch.Append)
		if ch.Artifact != nil {
			ids[ch.Artifact.ID] = true
		}
	}
	if !slices.Equal(appends, []bool{false, true, true}) {
		problems = append(problems, fmt.Sprintf("append flags %v, expected [false true true]", appends))
	}
	if len(s.chunks) > 0 && !s.chunks[len(s.chunks)-1].LastChunk {
		problems = append(problems, "last artifact update lacks lastChunk=true")
	}
	if len(ids) != 1 || !ids["slow"] {
		problems = append(problems, fmt.Sprintf("artifact ids %v, expected [slow]", ids))
	}
	if s.text() != "one two three" {
		problems = append(problems, fmt.Sprintf("assembled text %q, expected 'one two three'", s.text()))
	}
	if s.final != a2a.TaskStateCompleted {
		problems = append(problems, fmt.Sprintf("final state %s, expected completed", s.final))
	} else if s.taskID != "" {
		c.taskIDs = append(c.taskIDs, s.taskID)
		c.expected[s.taskID] = "one two three"
	}
	if len(problems) > 0 {
		return "", failf("%s (events %v)", strings.Join(problems, "; "), s.kinds)
	}
	return fmt.Sprintf("task %s: events %v, text %q", s.taskID, s.kinds, s.text()), nil
}

func (c *combo) checkInputRequired(ctx context.Context) (string, error) {
	first, err := c.sendTask(ctx, textMessage("need-input"))
	if err != nil {
		return "", err
	}
	if first.Status.State != a2a.TaskStateInputRequired {
		return "", failf("first reply state %s, expected input-required", first.Status.State)
	}
	question := ""
	if first.Status.Message != nil {
		question = partsText(first.Status.Message.Parts)
	}
	second, err := c.sendTask(ctx, userMessage(first.ID, first.ContextID, a2a.TextPart{Text: "answer"}))
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	if second.ID != first.ID {
		return "", failf("follow-up answered with task %s, expected %s", second.ID, first.ID)
	}
	if second.Status.State != a2a.TaskStateCompleted {
		return "", failf("follow-up state %s, expected completed", second.Status.State)
	}
	c.taskIDs = append(c.taskIDs, second.ID)
	c.expected[second.ID] = artifactText(second)
	if artifactText(second) != "answer" {
		return "", failf("follow-up artifacts %q, expected 'answer'", artifactText(second))
	}
	return fmt.Sprintf("task %s: input-required (%q) then completed, artifact %q", first.ID, question, artifactText(second)), nil
}

func (c *combo) checkCancelCompleted(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	tid, err := c.anyTask()
	if err != nil {
		return "", err
	}
	task, err := cl.CancelTask(ctx, &a2a.TaskIDParams{ID: tid})
	if err == nil {
		return "", failf("cancel of completed task %s succeeded: state %s", tid, task.Status.State)
	}
	if !errors.Is(err, a2a.ErrTaskNotCancelable) {
		return "", failf("wrong error: %s", describe(err))
	}
	return "ErrTaskNotCancelable: " + err.Error(), nil
}

func (c *combo) checkGetUnknown(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	task, err := cl.GetTask(ctx, &a2a.TaskQueryParams{ID: "no-such-task"})
	if err == nil {
		return "", failf("GetTask no-such-task returned task %q", task.ID)
	}
	if !errors.Is(err, a2a.ErrTaskNotFound) {
		return "", failf("wrong error: %s", describe(err))
	}
	return "ErrTaskNotFound: " + err.Error(), nil
}

func (c *combo) checkMessageOnly(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	res, err := cl.SendMessage(ctx, textMessage("message-only"))
	if err != nil {
		return "", err
	}
	msg, ok := res.(*a2a.Message)
	if !ok {
		return "", failf("expected a Message, got %T", res)
	}
	if msg.Role != a2a.MessageRoleAgent {
		return "", failf("message role %s, expected agent", msg.Role)
	}
	return fmt.Sprintf("Message role %s text %q", msg.Role, partsText(msg.Parts)), nil
}

func (c *combo) checkFile(ctx context.Context) (string, error) {
	file := a2a.FilePart{File: a2a.FileBytes{
		FileMeta: a2a.FileMeta{Name: "hello.bin", MimeType: "application/octet-stream"},
		Bytes:    base64.StdEncoding.EncodeToString(fileBytes),
	}}
	task, err := c.sendTask(ctx, userMessage("", "", a2a.TextPart{Text: "file"}, file))
	if err != nil {
		return "", err
	}
	if task.Status.State != a2a.TaskStateCompleted {
		said := ""
		if task.Status.Message != nil {
			said = partsText(task.Status.Message.Parts)
		}
		return "", failf("state %s (%q), expected completed; artifacts %q", task.Status.State, said, artifactText(task))
	}
	var art *a2a.Artifact
	for _, a := range task.Artifacts {
		if a.Name == "file" || a.ID == "file" {
			art = a
		}
	}
	if art == nil {
		return "", failf("no artifact 'file'; artifacts say %q", artifactText(task))
	}
	said := partsText(art.Parts)
	var got *a2a.FileBytes
	for _, p := range art.Parts {
		if fb, ok := fileOf(p); ok {
			got = &fb
			break
		}
	}
	var problems []string
	if said != fileDigest {
		problems = append(problems, fmt.Sprintf("agent says %q, expected %q", said, fileDigest))
	}
	if got == nil {
		problems = append(problems, "artifact has no file part with bytes")
	} else {
		raw, decErr := base64.StdEncoding.DecodeString(got.Bytes)
		switch {
		case decErr != nil && got.Bytes == string(fileBytes):
			problems = append(problems, "file bytes came back raw in FileBytes.Bytes, not base64 text (this SDK's FileBytes.Bytes is base64)")
		case decErr != nil:
			problems = append(problems, fmt.Sprintf("file bytes (%d chars) are not base64: %v", len(got.Bytes), decErr))
		case !bytes.Equal(raw, fileBytes):
			problems = append(problems, fmt.Sprintf("file bytes back %x, expected %x", raw, fileBytes))
		}
		// The v0.3 proto's FilePart has no name: gRPC drops it (CHECKS.md judges the bytes);
		// the media type survives every binding.
		if got.MimeType != "application/octet-stream" {
			problems = append(problems, fmt.Sprintf("file back of type %q, expected application/octet-stream", got.MimeType))
		}
	}
	if len(problems) > 0 {
		return "", failf("%s", strings.Join(problems, "; "))
	}
	return fmt.Sprintf("task %s: %q, 32 bytes back as base64 %q", task.ID, said, got.Bytes), nil
}

// webhook is a local receiver of push notifications.
type webhook struct {
	url  string
	srv  *http.Server
	mu   sync.Mutex
	got  []pushPost
	seen chan struct{}
}

type pushPost struct {
	token, contentType string
	body               []byte
}

func startWebhook() (*webhook, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	w := &webhook{url: fmt.Sprintf("http://%s/webhook", ln.Addr()), seen: make(chan struct{}, 64)}
	mux := http.NewServeMux()
	mux.HandleFunc("/webhook", func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if r.Method == http.MethodPost {
			w.mu.Lock()
			w.got = append(w.got, pushPost{r.Header.Get("X-A2A-Notification-Token"), r.Header.Get("Content-Type"), body})
			w.mu.Unlock()
			select {
			case w.seen <- struct{}{}:
			default:
			}
		}
		rw.WriteHeader(http.StatusOK)
	})
	w.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = w.srv.Serve(ln) }()
	return w, nil
}

func (w *webhook) close() { _ = w.srv.Close() }

func (w *webhook) posts() []pushPost {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.got)
}

func (c *combo) checkPush(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	hook, err := startWebhook()
	if err != nil {
		return "", fmt.Errorf("webhook listener: %w", err)
	}
	defer hook.close()
	token := "push-token-" + uuid.NewString()
	req := textMessage("slow")
	nonBlocking := false
	req.Config = &a2a.MessageSendConfig{Blocking: &nonBlocking, PushConfig: &a2a.PushConfig{URL: hook.url, Token: token}}
	res, err := cl.SendMessage(ctx, req)
	if err != nil {
		return "", err
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		return "", failf("expected a Task, got %T", res)
	}
	var summary []string
	for {
		for _, p := range hook.posts()[len(summary):] {
			var body struct {
				ID     a2a.TaskID `json:"id"`
				Kind   string     `json:"kind"`
				Status struct {
					State a2a.TaskState `json:"state"`
				} `json:"status"`
			}
			jerr := json.Unmarshal(p.body, &body)
			summary = append(summary, fmt.Sprintf("%s(token ok=%t, %s)", body.Status.State, p.token == token, p.contentType))
			if jerr == nil && p.token == token && body.ID == task.ID && body.Status.State == a2a.TaskStateCompleted {
				return fmt.Sprintf("task %s (sent %s): %d POST(s) to %s %v; the last a %q Task, %d bytes",
					task.ID, task.Status.State, len(summary), hook.url, summary, body.Kind, len(p.body)), nil
			}
		}
		select {
		case <-ctx.Done():
			last := ""
			if posts := hook.posts(); len(posts) > 0 {
				last = string(posts[len(posts)-1].body)
			}
			return "", failf("no POST with the token and a completed Task for %s within the timeout; POSTs %v; last body %.300s", task.ID, summary, last)
		case <-hook.seen:
		}
	}
}

func (c *combo) checkResubscribe(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	// The first stream: read one event, then drop it (cancel its context).
	firstCtx, dropFirst := context.WithCancel(ctx)
	var first a2a.Event
	for ev, err := range cl.SendStreamingMessage(firstCtx, textMessage("slow")) {
		if err != nil {
			dropFirst()
			return "", fmt.Errorf("first stream: %w", err)
		}
		first = ev
		break
	}
	dropFirst()
	if first == nil {
		return "", failf("first stream ended without an event")
	}
	tid := eventTaskID(first)
	if tid == "" {
		return "", failf("first event %s names no task", eventName(first))
	}
	var s streamSummary
	for ev, err := range cl.ResubscribeToTask(ctx, &a2a.TaskIDParams{ID: tid}) {
		if err != nil {
			return "", fmt.Errorf("resubscribe after events %v: %w", s.kinds, err)
		}
		s.add(ev)
	}
	var lastChunk string
	if n := len(s.chunks); n > 0 && s.chunks[n-1].Artifact != nil {
		lastChunk = partsText(s.chunks[n-1].Artifact.Parts)
	}
	if s.final != a2a.TaskStateCompleted || lastChunk != "three" {
		return "", failf("second stream ended in state %q with last chunk %q, expected completed and 'three' (events %v)", s.final, lastChunk, s.kinds)
	}
	return fmt.Sprintf("task %s: first stream %s then dropped; tasks/resubscribe events %v", tid, eventName(first), s.kinds), nil
}

func (c *combo) runAll() {
	c.run("card", c.checkCard)
	c.run("send", c.checkSend)
	c.run("stream", c.checkStream)
	c.run("input_required", c.checkInputRequired)
	c.run("get", c.checkGet)
	c.run("cancel_completed", c.checkCancelCompleted)
	c.run("get_unknown", c.checkGetUnknown)
	c.run("message_only", c.checkMessageOnly)
	c.run("file", c.checkFile)
	c.run("push", c.checkPush)
	c.run("resubscribe", c.checkResubscribe)
	if c.client != nil {
		_ = c.client.Destroy()
	}
}

// unsupported prints every check of a binding x version this release cannot run.
func (c *combo) unsupported(why string) {
	checks := []string{"card", "send", "stream", "input_required", "get", "cancel_completed",
		"get_unknown", "message_only", "file", "push", "resubscribe"}
	if c.version == "1.0" {
		checks = append(checks, "list")
	}
	for _, check := range checks {
		c.emit(check, false, why)
	}
}

func parseTimeout(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(secs * float64(time.Second)), nil
	}
	return time.ParseDuration(s)
}

func main() {
	url := flag.String("url", "", "base URL of the agent (its card is at /.well-known/agent-card.json)")
	server := flag.String("server", "a2a-wire", "value of the 'server' field in the output")
	timeoutArg := flag.String("timeout", "20", "time allowed for each check (seconds, or a Go duration)")
	var bindings, versions multiFlag
	flag.Var(&bindings, "binding", "only this binding (repeatable): JSONRPC, GRPC (HTTP+JSON: not in this release)")
	flag.Var(&versions, "version", "only this protocol version (repeatable): 0.3 (1.0: not in this release)")
	flag.Parse()
	timeout, err := parseTimeout(*timeoutArg)
	if *url == "" || err != nil || timeout <= 0 {
		fmt.Fprintln(os.Stderr, "usage: their_client --url http://127.0.0.1:PORT [--server NAME] [--timeout 20] [--binding B]... [--version V]...")
		os.Exit(2)
	}
	if len(bindings) == 0 {
		bindings = supportedBindings
	}
	if len(versions) == 0 {
		versions = supportedVersions
	}
	opts := &options{url: strings.TrimRight(*url, "/"), server: *server, timeout: timeout,
		http: &http.Client{Timeout: timeout + 5*time.Second}}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	card, cardErr := agentcard.NewResolver(opts.http).Resolve(ctx, opts.url)
	cancel()

	for _, b := range bindings {
		for _, v := range versions {
			c := &combo{opts: opts, card: card, cardErr: cardErr, binding: b, version: v, expected: map[a2a.TaskID]string{}}
			switch {
			case !slices.Contains(supportedBindings, b):
				c.unsupported(fmt.Sprintf("a2a-go v0.3.15 has no %s client transport (a2aclient has JSON-RPC and gRPC only)", b))
			case !slices.Contains(supportedVersions, v):
				c.unsupported(fmt.Sprintf("a2a-go v0.3.15 speaks protocol 0.3 only, not %s", v))
			default:
				c.runAll()
			}
		}
	}
	os.Exit(0)
}
