package temporalhost

import (
	"context"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/hivectl/hive/internal/exit"
)

// Dial connects to the Temporal server at address, its SDK's logging kept to errors
// (a session stopped after PLAN COMPLETE, say, is a warning to it).
func Dial(ctx context.Context, address, namespace string) (client.Client, error) {
	c, err := client.DialContext(ctx, client.Options{HostPort: address, Namespace: namespace,
		Logger: log.NewStructuredLogger(slog.New(quietStops{slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})}))})
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "cannot reach the Temporal server at %s (namespace %s): %v\nstart one (`temporal server start-dev`), or name yours with --temporal-address or backend.temporal.address in .hive/config.json", address, namespace, err)
	}
	return c, nil
}

// quietStops drops the SDK's report of an activity that ended because its
// worker was stopped (ctrl-c): hive says so itself, and the run goes on.
type quietStops struct{ slog.Handler }

func (q quietStops) Handle(ctx context.Context, r slog.Record) error {
	// Its answer to the server about that activity, which the stop also
	// cancelled, is the same news.
	if r.Message == "Activity task postprocess error: "+context.Canceled.Error() {
		return nil
	}
	if r.Message == "Activity error." {
		canceled := false
		r.Attrs(func(a slog.Attr) bool {
			canceled = a.Key == "Error" && a.Value.String() == context.Canceled.Error()
			return !canceled
		})
		if canceled {
			return nil
		}
	}
	return q.Handler.Handle(ctx, r)
}

func (q quietStops) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietStops{q.Handler.WithAttrs(attrs)}
}

func (q quietStops) WithGroup(name string) slog.Handler { return quietStops{q.Handler.WithGroup(name)} }
