package cli

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/serve"
	"github.com/hivectl/hive/internal/temporalhost"
	"github.com/spf13/cobra"
)

// tokenEnv holds the token instead of --token, which other users of the
// machine could read in the process list.
const tokenEnv = "HIVE_SERVE_TOKEN"

type serveOptions struct {
	*globalOptions
	temporalFlags
	addr  string
	token string
	log   bool
	rate  float64
}

func newServeCmd(g *globalOptions) *cobra.Command {
	o := &serveOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "A web dashboard of the repository's runs, where checkpoints are answered from any browser (a phone's too), and its JSON API",
		Long: `serve shows the runs of this repository (hive execute-phase and hive run),
live, and takes the answers to their checkpoints: a form per open checkpoint,
and a JSON API (GET /api/runs, /api/runs/RUN, /api/checkpoints, /api/events;
POST /api/runs/RUN/checkpoints/PLAN/ID/answer). It reads the journals that a
running hive writes, so it runs beside it or alone on finished runs. An
answer is recorded as hive answer records it: once, however many places
answer at the same time.

Every request needs the token: "Authorization: Bearer TOKEN" from a program,
or the session cookie that the one-time login link printed at start sets in
a browser (or the login form, with the token). Without --token (or
HIVE_SERVE_TOKEN) a random token is made and printed. It listens on loopback
unless --addr says otherwise; another address is reachable by anyone who can
reach the machine, so put https in front of it (a tunnel or proxy of your own)
and set notifications.public_url to that address: notifications then carry a
signed link that opens their checkpoint, once, within a day.

With --backend temporal (or backend.kind in config) the runs of the phases'
Temporal workflows are shown too, as runs temporal-N, read from each
workflow's state; their answers are signalled to the workflow.`,
		Example: `  hive serve
  hive serve --addr 0.0.0.0:7433     # on the network: prints a generated token
  HIVE_SERVE_TOKEN=... hive serve --addr 100.64.0.2:7433
  hive serve --backend temporal --temporal-address 10.0.0.5:7233
  curl -H "Authorization: Bearer $HIVE_SERVE_TOKEN" http://127.0.0.1:7433/api/checkpoints`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return serveRun(cmd, o) },
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:7433", "the address to listen on (HOST:PORT)")
	cmd.Flags().StringVar(&o.token, "token", "", "the token every request needs (default: $"+tokenEnv+", else a random one, printed)")
	cmd.Flags().BoolVar(&o.log, "log", false, "log every request (method, path without secrets, status) on stderr")
	cmd.Flags().Float64Var(&o.rate, "rate", 300, "requests per second each client address may make (twice that in a burst)")
	o.temporalFlags.add(cmd, g, "where the phase runs are kept: local (.hive/journal.db) or temporal (each phase's Temporal workflow, shown beside the journals' runs)")
	return cmd
}

func serveRun(cmd *cobra.Command, o *serveOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return exit.Errorf(exit.Usage, "--addr %q: %v (write HOST:PORT, such as 127.0.0.1:7433)", o.addr, err)
	}
	token, generated := o.token, false
	if token == "" {
		token = os.Getenv(tokenEnv)
	}
	if token == "" {
		token, generated = newToken(), true
	}
	if len(token) < 16 {
		return exit.Errorf(exit.Usage, "the token is too short to be safe: use 16 characters or more (or none, and hive serve makes one)")
	}
	cfg, err := config.Load(repo.Root)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	key, err := serve.LoadKey(repo.Root)
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	red := runconfig.SecretsOf(cfg).Red.With(token)
	logf := func(format string, args ...any) { fmt.Fprintf(o.stderr, "hive serve: "+format+"\n", args...) }
	remote, err := o.remote(cmd.Context(), repo.Root, logf)
	if err != nil {
		return err
	}
	if remote != nil {
		defer remote.Close()
	}
	opts := serve.Options{
		Root: repo.Root, Token: token, Key: key, PublicURL: cfg.Notifications.PublicURL, Redactor: red, Rate: o.rate,
		RenderLog: func(w io.Writer, log io.Reader) { renderLog(w, log) },
		Logf:      logf, LogRequests: o.log,
	}
	if remote != nil {
		opts.Remote = remote
	}
	srv, err := serve.New(opts)
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return exit.Errorf(exit.Usage, "listen on %s: %v (another hive serve? pick another port with --addr)", o.addr, err)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(o.stdout, "hive serve: %s/ shows the runs of %s\n", base, repo.Root)
	fmt.Fprintf(o.stdout, "Log in (works once, for 15 minutes): %s%s\n", base, srv.LoginURL())
	if generated {
		fmt.Fprintf(o.stdout, "Token (the API's Authorization: Bearer, and the login form): %s\n", token)
	}
	if !isLoopback(host) {
		fmt.Fprintf(o.stdout, "Listening beyond this machine: anyone who reaches %s needs the token; put https in front of it.\n", o.addr)
	}
	if cfg.Notifications.PublicURL != "" {
		fmt.Fprintf(o.stdout, "Notifications link to %s\n", cfg.Notifications.PublicURL)
	}
	if remote != nil {
		fmt.Fprintf(o.stdout, "Runs on the Temporal server at %s (namespace %s) are shown beside the journals'.\n", o.address, o.namespace)
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// Requests end with the command, the event streams included.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	follow := make(chan error, 1)
	go func() { follow <- srv.Run(ctx) }()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err = <-follow: // a journal hive serve cannot read, or Ctrl+C
	case err = <-served:
		stop()
		<-follow
		return exit.With(exit.Internal, err)
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if serr := hs.Shutdown(shutdown); serr != nil && !errors.Is(serr, context.DeadlineExceeded) && err == nil {
		err = serr
	}
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	return nil
}

// remote is the Temporal backend's runs when --backend (or backend.kind)
// says temporal, else nil.
func (o *serveOptions) remote(ctx context.Context, root string, logf func(string, ...any)) (*temporalhost.Remote, error) {
	switch o.backend {
	case "", "local":
		return nil, nil
	case "temporal":
	default:
		return nil, exit.Errorf(exit.Usage, "--backend %q: want local or temporal", o.backend)
	}
	phases, err := loadPhases(root, "")
	if err != nil {
		return nil, err
	}
	c, err := o.dial(ctx)
	if err != nil {
		return nil, err
	}
	return temporalhost.NewRemote(ctx, c, root, phases, logf), nil
}

// renderLog renders an agent log as hive attach does.
func renderLog(w io.Writer, log io.Reader) {
	r := &lines.LogRenderer{W: w}
	r.Drain(bufio.NewReader(log))
}

// newToken is 32 random bytes, base64url: nothing to guess.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// isLoopback says whether host names this machine only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
