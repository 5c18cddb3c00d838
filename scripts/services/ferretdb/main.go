// Command ferretdb runs an embedded FerretDB (MongoDB wire protocol) server
// backed by SQLite, for local tests only. See scripts/services/README.md.
//
// It embeds the github.com/FerretDB/FerretDB/ferretdb package because a plain
// `go install` of FerretDB's own cmd panics over its missing version file.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27018", "TCP address to listen on")
	dir := flag.String("sqlite-dir", "", "directory for the SQLite databases (required)")
	debug := flag.Bool("debug", false, "debug logging")
	flag.Parse()

	if *dir == "" {
		fmt.Fprintln(os.Stderr, "ferretdb: -sqlite-dir is required")
		os.Exit(2)
	}

	abs, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %v\n", err)
		os.Exit(2)
	}
	if err = os.MkdirAll(abs, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %v\n", err)
		os.Exit(2)
	}

	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Logger:    logger,
		Handler:   "sqlite",
		// The SQLite backend wants a directory URI ending in '/'. synchronous(normal): a write is acknowledged once it is
		// in SQLite's write-ahead log, fsynced at checkpoints, the durability MongoDB acknowledges by default (journal
		// flushed every 100 ms); SQLite's default fsyncs every commit, which capped the server at a few dozen writes/s.
		SQLiteURL: "file:" + abs + "/?_pragma=synchronous(normal)",
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %v\n", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	logger.Info("ferretdb starting", "listen", *listen, "sqlite", abs)
	if err = f.Run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %v\n", err)
		os.Exit(1)
	}
}
