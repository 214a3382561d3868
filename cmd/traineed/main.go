// Command traineed is the trainee service and its administration.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "time/tzdata" // company time zones resolve on any machine

	"github.com/traineed/traineed/api/server"
)

func main() {
	server.ServeHashHelperIfAsked() // the server's password-hashing helper process, started by serve
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
