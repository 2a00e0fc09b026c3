// Command their_client drives an A2A server (normally a2a-wire) with the
// official Go A2A SDK client (github.com/a2aproject/a2a-go/v2 v2.3.1).
//
//	their_client --url http://127.0.0.1:PORT [--server a2a-wire] [--timeout 20]
//	             [--binding JSONRPC|HTTP+JSON|GRPC]... [--version 1.0|0.3]...
//
// For every binding (JSONRPC, HTTP+JSON, GRPC) x protocol version (1.0, 0.3) it
// runs each check on its own and prints one JSON object per line:
//
//	{"sdk":"go","client":"go","server":"a2a-wire","binding":"JSONRPC",
//	 "version":"1.0","check":"send","ok":true,"detail":"..."}
//
// Checks (tests/interop/CHECKS.md): card, send, stream, input_required, get,
// cancel_completed, get_unknown, list (1.0 only), message_only, file, push,
// resubscribe. A failing check never stops the others; the exit status is 0
// whatever the results (the caller judges). Every check runs under its own
// deadline (--timeout, in seconds or as a Go duration such as 20s).
//
// Version 1.0 uses a2aclient's own transports (a2aclient.WithJSONRPCTransport,
// WithRESTTransport, a2agrpc/v1). Version 0.3 uses the SDK's v0.3 layer, which
// converts the same v1.0 calls to and from the v0.3 wire:
// a2av0.WithJSONRPCTransport, a2av0.WithRESTTransport (a2acompat/a2av0) and
// a2agrpc/v0 (service a2a.v1.A2AService). The card is parsed with
// a2av0.NewAgentCardParser, which reads supportedInterfaces (v1.0) or, on a
// v0.3-only card, url/preferredTransport/additionalInterfaces.
//
// How the SDK is steered to one interface: a2aclient.Factory.CreateFromCard
// ranks all the card's supportedInterfaces it has a transport for (newest
// protocol first, then the client's preferred bindings), so each client is made
// from a copy of the card whose supportedInterfaces holds only the interface
// under test (binding and version). Expected errors are recognised with errors.Is against the SDK's
// sentinels (a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable), which every
// transport maps from the wire (JSON-RPC code, google.rpc.ErrorInfo reason,
// gRPC status + ErrorInfo).
package main

import (
	"bytes"
	"context"
	"encoding/hex"
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
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var (
	allBindings = []string{"JSONRPC", "HTTP+JSON", "GRPC"}
	allVersions = []string{"1.0", "0.3"}
)

// fileBytes are CHECKS.md's FILE_BYTES: 32 bytes, not UTF-8, not base64 text.
var fileBytes = []byte("a2a-wire \x00\x01\x02\xfe\xff file bytes \x89PNG\r\n")

const fileSHA256 = "c623ddb6f664aa33b3176d5db240949c0cfa08cc35de1470e309eab0c90bde03"

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

// secondsFlag reads --timeout as seconds ("20", "2.5") or a Go duration ("20s").
type secondsFlag time.Duration

func (s *secondsFlag) String() string { return time.Duration(*s).String() }
func (s *secondsFlag) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		*s = secondsFlag(time.Duration(f * float64(time.Second)))
		return nil
	}
	d, err := time.ParseDuration(v)
	*s = secondsFlag(d)
	return err
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// checkFailed is a check that ran to the end with a wrong answer.
type checkFailed struct{ msg string }

func (e *checkFailed) Error() string { return e.msg }

func failf(format string, args ...any) error { return &checkFailed{fmt.Sprintf(format, args...)} }

var sentinels = []error{
	a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable, a2a.ErrParseError, a2a.ErrInvalidRequest,
	a2a.ErrMethodNotFound, a2a.ErrInvalidParams, a2a.ErrUnsupportedOperation,
	a2a.ErrUnsupportedContentType, a2a.ErrInvalidAgentResponse, a2a.ErrVersionNotSupported,
	a2a.ErrUnauthenticated, a2a.ErrUnauthorized, a2a.ErrServerError, a2a.ErrInternalError,
	context.DeadlineExceeded, context.Canceled,
}

// describe names the error the SDK produced, with the A2A sentinel it maps to.
func describe(err error) string {
	var cf *checkFailed
	if errors.As(err, &cf) {
		return cf.msg
	}
	kind := "unclassified"
	for _, s := range sentinels {
		if errors.Is(err, s) {
			kind = a2a.ErrorReason(s)
			if s == context.DeadlineExceeded {
				kind = "DEADLINE_EXCEEDED (no answer within the time limit)"
			} else if s == context.Canceled {
				kind = "CANCELED"
			}
			break
		}
	}
	return fmt.Sprintf("%T [%s]: %v", err, kind, err)
}

func stateName(s a2a.TaskState) string { return s.String() }

func partsText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
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

func userMessage(text string, taskID a2a.TaskID, contextID string) *a2a.SendMessageRequest {
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	m.TaskID = taskID
	m.ContextID = contextID
	return &a2a.SendMessageRequest{Message: m}
}

type combo struct {
	opts     *options
	card     *a2a.AgentCard
	cardErr  error
	binding  string
	version  string
	client   *a2aclient.Client
	taskIDs  []a2a.TaskID          // completed tasks made here, for get/cancel/list
	expected map[a2a.TaskID]string // artifact text each one should have
}

type options struct {
	url     string
	server  string
	timeout time.Duration
	http    *http.Client
}

func (c *combo) emit(check string, ok bool, detail string) {
	line, _ := json.Marshal(result{
		SDK: "go", Client: "go", Server: c.opts.server, Binding: c.binding,
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

func (c *combo) sendTask(ctx context.Context, req *a2a.SendMessageRequest) (*a2a.Task, error) {
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

// -- checks -------------------------------------------------------------------

func (c *combo) checkCard(ctx context.Context) (string, error) {
	if c.card == nil {
		return "", failf("agent card not fetched: %s", describe(c.cardErr))
	}
	var iface *a2a.AgentInterface
	var listed []string
	for _, i := range c.card.SupportedInterfaces {
		listed = append(listed, fmt.Sprintf("%s/%s@%s", i.ProtocolBinding, i.ProtocolVersion, i.URL))
		if iface == nil && string(i.ProtocolBinding) == c.binding && majorMinor(string(i.ProtocolVersion)) == c.version {
			iface = i
		}
	}
	if iface == nil {
		return "", failf("no %s %s interface in card; listed: %v", c.binding, c.version, listed)
	}
	if !c.card.Capabilities.Streaming {
		return "", failf("card does not declare capabilities.streaming")
	}
	sub := *c.card
	chosen := *iface
	sub.SupportedInterfaces = []*a2a.AgentInterface{&chosen}
	insecureGRPC := grpc.WithTransportCredentials(insecure.NewCredentials())
	factory := a2aclient.NewFactory(
		a2aclient.WithDefaultsDisabled(),
		// 1.0
		a2aclient.WithJSONRPCTransport(c.opts.http),
		a2aclient.WithRESTTransport(c.opts.http),
		a2agrpc.WithGRPCTransport(insecureGRPC),
		// 0.3
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: c.opts.http}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: c.opts.http}),
		a2agrpcv0.WithGRPCTransport(insecureGRPC),
	)
	cl, err := factory.CreateFromCard(ctx, &sub)
	if err != nil {
		return "", err
	}
	c.client = cl
	return fmt.Sprintf("%s (%s %s)", iface.URL, iface.ProtocolBinding, iface.ProtocolVersion), nil
}

func majorMinor(v string) string {
	v = strings.TrimPrefix(v, "v")
	parts := strings.Split(v, ".")
	if len(parts) > 2 {
		parts = parts[:2]
	}
	return strings.Join(parts, ".")
}

func (c *combo) checkSend(ctx context.Context) (string, error) {
	task, err := c.sendTask(ctx, userMessage("hello", "", ""))
	if err != nil {
		return "", err
	}
	if task.Status.State != a2a.TaskStateCompleted {
		return "", failf("state %s, expected TASK_STATE_COMPLETED", stateName(task.Status.State))
	}
	c.taskIDs = append([]a2a.TaskID{task.ID}, c.taskIDs...)
	c.expected[task.ID] = "hello"
	if text := artifactText(task); text != "hello" || len(task.Artifacts) != 1 {
		return "", failf("artifact text %q in %d artifacts, expected 'hello' in 1", text, len(task.Artifacts))
	}
	return fmt.Sprintf("task %s %s, artifact %q", task.ID, stateName(task.Status.State), artifactText(task)), nil
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
	task, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: tid})
	if err != nil {
		return "", err
	}
	if task.ID != tid {
		return "", failf("asked for %s, got task %q", tid, task.ID)
	}
	if task.Status.State != a2a.TaskStateCompleted {
		return "", failf("state %s, expected TASK_STATE_COMPLETED", stateName(task.Status.State))
	}
	if want := c.expected[tid]; artifactText(task) != want {
		return "", failf("artifact text %q, expected %q", artifactText(task), want)
	}
	return fmt.Sprintf("task %s %s, artifact %q", tid, stateName(task.Status.State), artifactText(task)), nil
}

func (c *combo) checkStream(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	var kinds []string
	var chunks []*a2a.TaskArtifactUpdateEvent
	var taskID a2a.TaskID
	var final a2a.TaskState
	for ev, err := range cl.SendStreamingMessage(ctx, userMessage("slow", "", "")) {
		if err != nil {
			return "", fmt.Errorf("after events %v: %w", kinds, err)
		}
		switch v := ev.(type) {
		case *a2a.Task:
			kinds = append(kinds, "task("+stateName(v.Status.State)+")")
			taskID, final = v.ID, v.Status.State
		case *a2a.TaskStatusUpdateEvent:
			kinds = append(kinds, "status("+stateName(v.Status.State)+")")
			if taskID == "" {
				taskID = v.TaskID
			}
			final = v.Status.State
		case *a2a.TaskArtifactUpdateEvent:
			text := ""
			if v.Artifact != nil {
				text = partsText(v.Artifact.Parts)
			}
			kinds = append(kinds, fmt.Sprintf("artifact(%q,append=%t,last=%t)", text, v.Append, v.LastChunk))
			chunks = append(chunks, v)
		case *a2a.Message:
			kinds = append(kinds, "message")
		default:
			kinds = append(kinds, fmt.Sprintf("%T", ev))
		}
	}
	var problems []string
	if len(chunks) != 3 {
		problems = append(problems, fmt.Sprintf("%d artifact updates, expected 3", len(chunks)))
	}
	var appends []bool
	var text strings.Builder
	ids := map[a2a.ArtifactID]bool{}
	for _, ch := range chunks {
		appends = append(appends, ch.Append)
		if ch.Artifact != nil {
			ids[ch.Artifact.ID] = true
			text.WriteString(partsText(ch.Artifact.Parts))
		}
	}
	if !slices.Equal(appends, []bool{false, true, true}) {
		problems = append(problems, fmt.Sprintf("append flags %v, expected [false true true]", appends))
	}
	if len(chunks) > 0 && !chunks[len(chunks)-1].LastChunk {
		problems = append(problems, "last artifact update lacks lastChunk=true")
	}
	if len(ids) != 1 || !ids["slow"] {
		problems = append(problems, fmt.Sprintf("artifact ids %v, expected [slow]", ids))
	}
	if text.String() != "one two three" {
		problems = append(problems, fmt.Sprintf("assembled text %q, expected 'one two three'", text.String()))
	}
	if final != a2a.TaskStateCompleted {
		problems = append(problems, fmt.Sprintf("final state %s, expected TASK_STATE_COMPLETED", stateName(final)))
	} else if taskID != "" {
		c.taskIDs = append(c.taskIDs, taskID)
		c.expected[taskID] = "one two three"
	}
	if len(problems) > 0 {
		return "", failf("%s (events %v)", strings.Join(problems, "; "), kinds)
	}
	return fmt.Sprintf("task %s: events %v, text %q", taskID, kinds, text.String()), nil
}

func (c *combo) checkInputRequired(ctx context.Context) (string, error) {
	first, err := c.sendTask(ctx, userMessage("need-input", "", ""))
	if err != nil {
		return "", err
	}
	if first.Status.State != a2a.TaskStateInputRequired {
		return "", failf("first reply state %s, expected TASK_STATE_INPUT_REQUIRED", stateName(first.Status.State))
	}
	question := ""
	if first.Status.Message != nil {
		question = partsText(first.Status.Message.Parts)
	}
	second, err := c.sendTask(ctx, userMessage("x", first.ID, first.ContextID))
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	if second.ID != first.ID {
		return "", failf("follow-up answered with task %s, expected %s", second.ID, first.ID)
	}
	if second.Status.State != a2a.TaskStateCompleted {
		return "", failf("follow-up state %s, expected TASK_STATE_COMPLETED", stateName(second.Status.State))
	}
	c.taskIDs = append(c.taskIDs, second.ID)
	c.expected[second.ID] = artifactText(second)
	if !strings.Contains(artifactText(second), "x") {
		return "", failf("follow-up artifacts %q do not echo 'x'", artifactText(second))
	}
	return fmt.Sprintf("task %s: INPUT_REQUIRED (%q) then COMPLETED, artifact %q", first.ID, question, artifactText(second)), nil
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
	task, err := cl.CancelTask(ctx, &a2a.CancelTaskRequest{ID: tid})
	if err == nil {
		return "", failf("cancel of completed task %s succeeded: state %s", tid, stateName(task.Status.State))
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
	task, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
	if err == nil {
		return "", failf("GetTask no-such-task returned task %q", task.ID)
	}
	if !errors.Is(err, a2a.ErrTaskNotFound) {
		return "", failf("wrong error: %s", describe(err))
	}
	return "ErrTaskNotFound: " + err.Error(), nil
}

func (c *combo) checkList(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	if len(c.taskIDs) == 0 {
		return "", failf("skipped: no completed task to look for")
	}
	const maxPages = 20
	listed := map[a2a.TaskID]bool{}
	token := ""
	pages := 0
	for pages < maxPages {
		resp, err := cl.ListTasks(ctx, &a2a.ListTasksRequest{PageToken: token})
		if err != nil {
			return "", fmt.Errorf("page %d: %w", pages+1, err)
		}
		pages++
		for _, t := range resp.Tasks {
			listed[t.ID] = true
		}
		found := true
		for _, id := range c.taskIDs {
			found = found && listed[id]
		}
		if found || resp.NextPageToken == "" {
			break
		}
		token = resp.NextPageToken
	}
	if len(listed) == 0 {
		return "", failf("ListTasks returned no tasks")
	}
	var missing []a2a.TaskID
	for _, id := range c.taskIDs {
		if !listed[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return "", failf("ListTasks (%d tasks in %d pages) lacks %v", len(listed), pages, missing)
	}
	return fmt.Sprintf("%d tasks in %d page(s), includes all %d made here", len(listed), pages, len(c.taskIDs)), nil
}

func (c *combo) checkMessageOnly(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	res, err := cl.SendMessage(ctx, userMessage("message-only", "", ""))
	if err != nil {
		return "", err
	}
	msg, ok := res.(*a2a.Message)
	if !ok {
		return "", failf("expected a Message, got %T", res)
	}
	if msg.Role != a2a.MessageRoleAgent {
		return "", failf("message role %s, expected ROLE_AGENT", msg.Role)
	}
	return fmt.Sprintf("Message role %s text %q", msg.Role, partsText(msg.Parts)), nil
}

func (c *combo) checkFile(ctx context.Context) (string, error) {
	filePart := a2a.NewRawPart(fileBytes)
	filePart.Filename = "hello.bin"
	filePart.MediaType = "application/octet-stream"
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("file"), filePart)
	task, err := c.sendTask(ctx, &a2a.SendMessageRequest{Message: m})
	if err != nil {
		return "", err
	}
	if task.Status.State != a2a.TaskStateCompleted {
		return "", failf("state %s, expected TASK_STATE_COMPLETED", stateName(task.Status.State))
	}
	var art *a2a.Artifact
	var names []string
	for _, a := range task.Artifacts {
		names = append(names, fmt.Sprintf("%s/%s", a.ID, a.Name))
		if art == nil && (a.ID == "file" || a.Name == "file") {
			art = a
		}
	}
	if art == nil {
		return "", failf("no artifact 'file' (artifacts %v)", names)
	}
	want := fmt.Sprintf("received %d bytes sha256 %s", len(fileBytes), fileSHA256)
	said := partsText(art.Parts)
	var got []byte
	var gotName, gotType string
	files := 0
	for _, p := range art.Parts {
		if raw, ok := p.Content.(a2a.Raw); ok {
			files++
			if files == 1 {
				got, gotName, gotType = raw, p.Filename, p.MediaType
			}
		}
	}
	var problems []string
	if said != want {
		problems = append(problems, fmt.Sprintf("agent said %q, expected %q (it did not get the bytes sent)", said, want))
	}
	if files == 0 {
		problems = append(problems, "no file part with bytes in the artifact")
	} else if !bytes.Equal(got, fileBytes) {
		problems = append(problems, fmt.Sprintf("file part bytes %d:%s, expected %d:%s", len(got), hex.EncodeToString(got), len(fileBytes), hex.EncodeToString(fileBytes)))
	}
	if len(problems) > 0 {
		return "", failf("%s", strings.Join(problems, "; "))
	}
	return fmt.Sprintf("task %s: %q, file part %d bytes identical (name %q, media type %q)", task.ID, said, len(got), gotName, gotType), nil
}

// pushPost is one request the webhook received.
type pushPost struct {
	header http.Header
	body   []byte
}

// pushBodyNames reports whether a push body names the task and its completed
// state: v1.0 a StreamResponse ({"task": ...} or {"statusUpdate": ...}) or a
// bare Task with TASK_STATE_COMPLETED; v0.3 the Task with "completed".
func pushBodyNames(version string, body []byte, taskID a2a.TaskID) bool {
	type status struct {
		State string `json:"state"`
	}
	type task struct {
		ID     string `json:"id"`
		Kind   string `json:"kind"`
		Status status `json:"status"`
	}
	var doc struct {
		task
		Task         *task `json:"task"`
		StatusUpdate *struct {
			TaskID string `json:"taskId"`
			Status status `json:"status"`
		} `json:"statusUpdate"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return false
	}
	id := string(taskID)
	if version == "0.3" {
		return doc.ID == id && doc.Status.State == "completed"
	}
	const done = "TASK_STATE_COMPLETED"
	switch {
	case doc.Task != nil:
		return doc.Task.ID == id && doc.Task.Status.State == done
	case doc.StatusUpdate != nil:
		return doc.StatusUpdate.TaskID == id && doc.StatusUpdate.Status.State == done
	default:
		return doc.ID == id && doc.Status.State == done
	}
}

func (c *combo) checkPush(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	posts := make(chan pushPost, 64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("webhook listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhook", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		select {
		case posts <- pushPost{header: r.Header.Clone(), body: body}:
		default:
		}
		w.WriteHeader(http.StatusOK)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()

	webhook := fmt.Sprintf("http://%s/webhook", ln.Addr())
	token := "push-token-" + uuid.NewString()
	req := userMessage("slow", "", "")
	req.Config = &a2a.SendMessageConfig{
		ReturnImmediately: true,
		PushConfig:        &a2a.PushConfig{URL: webhook, Token: token},
	}
	res, err := cl.SendMessage(ctx, req)
	if err != nil {
		return "", err
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		return "", failf("expected a Task, got %T", res)
	}
	var seen []string
	var tokenElsewhere string
	for {
		select {
		case <-ctx.Done():
			why := fmt.Sprintf("no POST to %s with X-A2A-Notification-Token %s naming task %s completed within the time limit; %d POST(s): %v",
				webhook, token, task.ID, len(seen), seen)
			if tokenElsewhere != "" {
				why += "; the token came in header " + tokenElsewhere + " instead"
			}
			return "", failf("%s", why)
		case p := <-posts:
			// CHECKS.md: X-A2A-Notification-Token (v0.3's header); on 1.0, which names no
			// header since v1.0.1, A2A-Notification-Token too (what this SDK sends).
			got := p.header.Get("X-A2A-Notification-Token")
			if v := p.header.Get("A2A-Notification-Token"); c.version == "1.0" && v != "" {
				got = v
			}
			for name, vals := range p.header {
				if !strings.EqualFold(name, "X-A2A-Notification-Token") && !(c.version == "1.0" && strings.EqualFold(name, "A2A-Notification-Token")) && slices.Contains(vals, token) {
					tokenElsewhere = name
				}
			}
			summary := string(p.body)
			if len(summary) > 200 {
				summary = summary[:200] + "..."
			}
			seen = append(seen, fmt.Sprintf("[token header %q, Content-Type %q] %s", got, p.header.Get("Content-Type"), summary))
			if got == token && pushBodyNames(c.version, p.body, task.ID) {
				return fmt.Sprintf("task %s (reply state %s): POST %d carries the token and the completed task: %s",
					task.ID, stateName(task.Status.State), len(seen), summary), nil
			}
		}
	}
}

func (c *combo) checkResubscribe(ctx context.Context) (string, error) {
	cl, err := c.need()
	if err != nil {
		return "", err
	}
	// First stream: read one event, then drop the stream (cancel its context
	// and leave the loop, which closes the SSE body / gRPC stream).
	first, dropStream := context.WithCancel(ctx)
	var taskID a2a.TaskID
	var firstKind string
	for ev, err := range cl.SendStreamingMessage(first, userMessage("slow", "", "")) {
		if err != nil {
			dropStream()
			return "", fmt.Errorf("first stream: %w", err)
		}
		firstKind = fmt.Sprintf("%T", ev)
		taskID = ev.TaskInfo().TaskID
		break
	}
	dropStream()
	if taskID == "" {
		return "", failf("first stream gave no event with a task id (first event %s)", firstKind)
	}

	var kinds []string
	var final a2a.TaskState
	sawThree := false
	for ev, err := range cl.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: taskID}) {
		if err != nil {
			return "", fmt.Errorf("resubscribe to %s after events %v: %w", taskID, kinds, err)
		}
		switch v := ev.(type) {
		case *a2a.Task:
			kinds = append(kinds, "task("+stateName(v.Status.State)+")")
			final = v.Status.State
			if strings.HasSuffix(artifactText(v), "three") {
				sawThree = true
			}
		case *a2a.TaskStatusUpdateEvent:
			kinds = append(kinds, "status("+stateName(v.Status.State)+")")
			final = v.Status.State
		case *a2a.TaskArtifactUpdateEvent:
			text := ""
			if v.Artifact != nil {
				text = partsText(v.Artifact.Parts)
			}
			kinds = append(kinds, fmt.Sprintf("artifact(%q)", text))
			if text == "three" {
				sawThree = true
			}
		default:
			kinds = append(kinds, fmt.Sprintf("%T", ev))
		}
	}
	if final != a2a.TaskStateCompleted || !sawThree {
		return "", failf("second stream of task %s ended in state %s, chunk 'three' seen: %t (events %v)",
			taskID, stateName(final), sawThree, kinds)
	}
	return fmt.Sprintf("task %s: dropped after %s; resubscribed: events %v", taskID, firstKind, kinds), nil
}

func (c *combo) runAll() {
	c.run("card", c.checkCard)
	c.run("send", c.checkSend)
	c.run("stream", c.checkStream)
	c.run("input_required", c.checkInputRequired)
	c.run("get", c.checkGet)
	c.run("cancel_completed", c.checkCancelCompleted)
	c.run("get_unknown", c.checkGetUnknown)
	if c.version == "1.0" { // v0.3 has no ListTasks
		c.run("list", c.checkList)
	}
	c.run("message_only", c.checkMessageOnly)
	c.run("file", c.checkFile)
	c.run("push", c.checkPush)
	c.run("resubscribe", c.checkResubscribe)
	if c.client != nil {
		_ = c.client.Destroy()
	}
}

func main() {
	url := flag.String("url", "", "base URL of the agent (its card is at /.well-known/agent-card.json)")
	server := flag.String("server", "a2a-wire", "value of the 'server' field in the output")
	timeoutFlag := secondsFlag(20 * time.Second)
	flag.Var(&timeoutFlag, "timeout", "time allowed for each check: seconds (20) or a duration (20s)")
	var bindings, versions multiFlag
	flag.Var(&bindings, "binding", "only this binding (repeatable): JSONRPC, HTTP+JSON, GRPC")
	flag.Var(&versions, "version", "only this protocol version (repeatable): 1.0, 0.3")
	flag.Parse()
	timeout := (*time.Duration)(&timeoutFlag)
	if *url == "" || *timeout <= 0 {
		fmt.Fprintln(os.Stderr, "usage: their_client --url http://127.0.0.1:PORT [--server NAME] [--timeout 20] [--binding B]... [--version V]...")
		os.Exit(2)
	}
	if len(bindings) == 0 {
		bindings = allBindings
	}
	if len(versions) == 0 {
		versions = allVersions
	}
	// A backstop above the per-check deadline: a2aclient's HTTP transports
	// honour the context, and gRPC calls get it too.
	opts := &options{url: strings.TrimRight(*url, "/"), server: *server, timeout: *timeout,
		http: &http.Client{Timeout: *timeout + 5*time.Second}}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	resolver := &agentcard.Resolver{Client: opts.http, CardParser: a2av0.NewAgentCardParser()}
	card, cardErr := resolver.Resolve(ctx, opts.url)
	cancel()

	for _, b := range bindings {
		for _, v := range versions {
			(&combo{opts: opts, card: card, cardErr: cardErr, binding: b, version: v,
				expected: map[a2a.TaskID]string{}}).runAll()
		}
	}
	os.Exit(0)
}
