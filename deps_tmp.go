//go:build tools

package main

import (
	_ "charm.land/bubbles/v2/table"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/getkin/kin-openapi/openapi3filter"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/spf13/cobra"
	_ "github.com/uptrace/bun"
	_ "github.com/uptrace/bun/dialect/pgdialect"
	_ "github.com/uptrace/bun/dialect/sqlitedialect"
	_ "github.com/uptrace/bun/migrate"
	_ "golang.org/x/crypto/argon2"
	_ "golang.org/x/term"
	_ "gopkg.in/yaml.v3"
	_ "modernc.org/sqlite"
)
