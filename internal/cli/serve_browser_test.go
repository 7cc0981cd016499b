package cli

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds the browser the browser tests drive: $HIVE_CHROMIUM, or
// Debian's chromium, which `make test` installs. Under CI a missing
// browser fails the test: a skipped browser test proves nothing.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("HIVE_CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("Chromium is not installed: run `make test`, which installs Debian's chromium package for the browser tests")
	}
	t.Skip("Chromium is not installed: `make test` installs it (Debian's chromium package); skipped outside CI")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile and nothing
// that reaches the network.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// artifacts is where the browser tests leave their screenshots:
// $HIVE_ARTIFACTS when set (CI keeps it), else the test's temporary folder.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HIVE_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shot saves a full-page screenshot (PNG: quality 100) at width×height.
func shot(t *testing.T, ctx context.Context, dir, name string, width, height int64) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(width, height),
		chromedp.Sleep(200*time.Millisecond), // the new layout painted
	); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestServeBrowser drives hive serve's pages in a real Chromium beside a
// running sim phase: the dashboard opens from the login link, the run's
// page follows the plans live (no reload by the test), a decision and a
// human-verify are answered through their forms, and the page shows the
// run finish.
func TestServeBrowser(t *testing.T) {
	ctx := newBrowser(t)
	dir, env := serveRepo(t, []servePlan{{"01-01", []string{"verify"}}, {"01-02", []string{"decision"}}, {"01-03", nil}}, "",
		"HIVE_SIM_DELAY=400ms", "CI=")
	login := startServeCmd(t, dir, env)
	base, err := url.Parse(login)
	if err != nil {
		t.Fatal(err)
	}
	origin := base.Scheme + "://" + base.Host
	shots := artifacts(t)

	// The dashboard, before anything ran.
	var text string
	// mainText reads what the page shows in its main part.
	mainText := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(login),
		chromedp.WaitVisible(chromedp.CSS(`main h1`)),
	); err != nil {
		t.Fatal(err)
	}
	text = mainText()
	if !strings.Contains(text, "Nothing has run in this repository yet") {
		t.Errorf("the dashboard before any run:\n%s", text)
	}

	// The run starts in another process; the dashboard shows it live.
	run, cancel := context.WithCancel(context.Background())
	defer cancel()
	exe := hiveCmd(t, run, env, "execute-phase", "1", "--agent", "sim", "--checkpoint-wait", "5m", "--repo", dir)
	var out strings.Builder
	exe.Stdout, exe.Stderr = &out, &out
	if err := exe.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- exe.Wait() }()
	defer func() {
		if t.Failed() {
			t.Logf("execute-phase's output:\n%s", out.String())
		}
	}()
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`ul.runs a[href="/runs/phase-1"]`)),
		chromedp.Navigate(origin+"/runs/phase-1"),
		chromedp.WaitVisible(chromedp.CSS(`table.items .s-running`)),
	); err != nil {
		t.Fatalf("the run on the dashboard: %v", err)
	}
	// The page is not reloaded from here on: what changes comes through
	// the event stream.
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`table.items .s-complete`)), // 01-03 has no checkpoint
		chromedp.WaitVisible(chromedp.CSS(`button[value="clerk"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[value="approved"]`)),
	); err != nil {
		t.Fatalf("the run's progress and checkpoints, live: %v", err)
	}
	shot(t, ctx, shots, "run-phone.png", 390, 844)

	// Answer the decision through its form.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`button[value="clerk"]`)),
		chromedp.WaitVisible(chromedp.CSS(`main p.ok, main p.bad`)), // the answer's outcome
	); err != nil {
		t.Fatal(err)
	}
	text = mainText()
	if !strings.Contains(text, "Answer recorded") || !strings.Contains(text, `"clerk"`) {
		t.Fatalf("after answering the decision:\n%s", text)
	}
	// Approve the human-verify from the run's page.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(origin+"/runs/phase-1"),
		chromedp.WaitVisible(chromedp.CSS(`button[value="approved"]`)),
		chromedp.Click(chromedp.CSS(`button[value="approved"]`)),
		chromedp.WaitVisible(chromedp.CSS(`main p.ok, main p.bad`)),
	); err != nil {
		t.Fatal(err)
	}
	text = mainText()
	if !strings.Contains(text, "Answer recorded") || !strings.Contains(text, `"approved"`) {
		t.Fatalf("after approving:\n%s", text)
	}
	// The run finishes, and its page says so live.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(origin+"/runs/phase-1"),
		chromedp.WaitVisible(chromedp.CSS(`p.meta .s-finished`)),
	); err != nil {
		t.Fatalf("the run's end: %v", err)
	}
	text = mainText()
	if !strings.Contains(text, "finished: complete") || strings.Contains(text, "Waiting for you") {
		t.Errorf("the finished run's page:\n%s", text)
	}
	shot(t, ctx, shots, "run-desktop.png", 1280, 900)
	if err := chromedp.Do(ctx, chromedp.Navigate(origin+"/"), chromedp.WaitVisible(chromedp.CSS(`ul.runs`))); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, shots, "dashboard-phone.png", 390, 844)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("execute-phase: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("execute-phase did not exit after its run finished")
	}
}
