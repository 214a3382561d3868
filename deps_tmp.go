//go:build tools

package main
import (
	_ "github.com/uptrace/bun"
	_ "github.com/uptrace/bun/dialect/sqlitedialect"
	_ "github.com/uptrace/bun/dialect/pgdialect"
	_ "github.com/uptrace/bun/migrate"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
	_ "github.com/spf13/cobra"
	_ "github.com/olekukonko/tablewriter"
	_ "golang.org/x/crypto/argon2"
	_ "github.com/getkin/kin-openapi/openapi3filter"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/bubbles/v2/table"
	_ "charm.land/lipgloss/v2"
	_ "gopkg.in/yaml.v3"
	_ "golang.org/x/term"
)
