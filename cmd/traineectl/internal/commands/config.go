package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/config"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

func newConfigCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config <command>",
		Short: "Manage saved profiles (server address and API key)",
		Long: `Profiles save a server address and an API key under a name, in
$XDG_CONFIG_HOME/traineectl/config.yaml (else ~/.config/traineectl/config.yaml),
readable by you only (permissions 0600). The current profile is used when
neither a flag nor an environment variable gives a setting; --profile picks
another one for one command.`,
		Example: `  traineectl config set-profile prod --base-url https://trainees.example.com --api-key pk_...
  traineectl config set-profile local --base-url http://127.0.0.1:8080 --api-key pk_...
  traineectl config use local
  traineectl config list
  traineectl --profile prod search ada`,
		Args: cmdutil.ExactArgs(0, "a subcommand"),
	}
	cmd.AddCommand(newConfigSetProfileCmd(f), newConfigUseCmd(f), newConfigListCmd(f))
	return cmd
}

func newConfigSetProfileCmd(f *cmdutil.Factory) *cobra.Command {
	var baseURL, apiKey string
	cmd := &cobra.Command{
		Use:   "set-profile NAME [--base-url URL] [--api-key KEY]",
		Short: "Create or change a profile",
		Long: `Create the profile NAME or change the settings given. The first profile
created becomes the current one.`,
		Example: `  traineectl config set-profile prod --base-url https://trainees.example.com --api-key pk_...
  traineectl config set-profile prod --api-key pk_...   # rotate the key`,
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: completeProfiles(f, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			fs := cmd.Flags()
			if !fs.Changed("base-url") && !fs.Changed("api-key") {
				return cmdutil.Usagef("give --base-url, --api-key or both")
			}
			if fs.Changed("base-url") {
				if err := cmdutil.CheckBaseURL(baseURL); err != nil {
					return &cmdutil.UsageError{Err: fmt.Errorf("--base-url: %w", err)}
				}
			}
			cfg, path, err := loadConfig(f)
			if err != nil {
				return err
			}
			p := cfg.Profiles[name]
			if p == nil {
				p = &config.Profile{}
				cfg.Profiles[name] = p
			}
			if fs.Changed("base-url") {
				p.BaseURL = baseURL
			}
			if fs.Changed("api-key") {
				p.APIKey = apiKey
			}
			if cfg.Current == "" {
				cfg.Current = name
			}
			if err := cfg.Save(path); err != nil {
				return err
			}
			state := ""
			if cfg.Current == name {
				state = " (current)"
			}
			fmt.Fprintf(f.IOStreams.ErrOut, "Saved profile %s%s in %s\n", name, state, path)
			return nil
		},
	}
	cmd.Flags().StringVar(&baseURL, "base-url", "", "address of the trainee API, like https://trainees.example.com")
	cmd.Flags().StringVar(&apiKey, "api-key", "", "API key (pk_...)")
	_ = cmd.RegisterFlagCompletionFunc("api-key", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("base-url", cobra.NoFileCompletions)
	return cmd
}

func newConfigUseCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "use NAME",
		Short:             "Make a profile the current one",
		Example:           `  traineectl config use prod`,
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: completeProfiles(f, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, path, err := loadConfig(f)
			if err != nil {
				return err
			}
			if _, ok := cfg.Profiles[args[0]]; !ok {
				return cmdutil.Usagef("no profile %q: create it with `traineectl config set-profile %s --base-url ... --api-key ...`", args[0], args[0])
			}
			cfg.Current = args[0]
			if err := cfg.Save(path); err != nil {
				return err
			}
			fmt.Fprintf(f.IOStreams.ErrOut, "Now using profile %s\n", args[0])
			return nil
		},
	}
}

type profileJSON struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	BaseURL string `json:"baseUrl"`
	APIKey  string `json:"apiKey"`
}

func newConfigListCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List the profiles, keys masked",
		Example: `  traineectl config list`,
		Args:    cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, _, err := loadConfig(f)
			if err != nil {
				return err
			}
			list := []profileJSON{}
			for _, n := range cfg.Names() {
				p := cfg.Profiles[n]
				list = append(list, profileJSON{n, n == cfg.Current, p.BaseURL, client.MaskKey(p.APIKey)})
			}
			ios := f.IOStreams
			switch f.OutputFormat() {
			case output.JSON:
				return output.WriteJSON(ios.Out, list)
			case output.YAML:
				return output.WriteYAML(ios.Out, list)
			}
			rows := make([][]string, len(list))
			for i, p := range list {
				cur := ""
				if p.Current {
					cur = "*"
				}
				rows[i] = []string{cur, p.Name, p.BaseURL, p.APIKey}
			}
			if f.OutputFormat() == output.CSV {
				for i, p := range list {
					rows[i][0] = fmt.Sprint(p.Current)
				}
				return output.WriteCSV(ios.Out, []string{"current", "name", "baseUrl", "apiKey"}, rows)
			}
			return output.WriteTable(ios.Out, ios.TableWidth(), []output.Column{
				{Header: "CURRENT"}, {Header: "NAME", Flex: true}, {Header: "BASE URL", Flex: true}, {Header: "API KEY"},
			}, rows)
		},
	}
}

func loadConfig(f *cmdutil.Factory) (*config.File, string, error) {
	path, err := f.ConfigPath()
	if err != nil {
		return nil, "", err
	}
	cfg, err := f.Config()
	return cfg, path, err
}
