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

// ConfigSetProfileOptions are the inputs of `traineectl config
// set-profile`; a nil setting is left as it is.
type ConfigSetProfileOptions struct {
	Name            string
	BaseURL, APIKey *string
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
			fs := cmd.Flags()
			return runConfigSetProfile(f, &ConfigSetProfileOptions{
				Name:    args[0],
				BaseURL: ifChanged(fs, "base-url", &baseURL),
				APIKey:  ifChanged(fs, "api-key", &apiKey),
			})
		},
	}
	cmd.Flags().StringVar(&baseURL, "base-url", "", "address of the trainee API, like https://trainees.example.com")
	cmd.Flags().StringVar(&apiKey, "api-key", "", "API key (pk_...)")
	_ = cmd.RegisterFlagCompletionFunc("api-key", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("base-url", cobra.NoFileCompletions)
	return cmd
}

// runConfigSetProfile creates or changes the profile; the first one
// becomes the current one.
func runConfigSetProfile(f *cmdutil.Factory, o *ConfigSetProfileOptions) error {
	if o.BaseURL == nil && o.APIKey == nil {
		return cmdutil.Usagef("give --base-url, --api-key or both")
	}
	if o.BaseURL != nil {
		if err := cmdutil.CheckBaseURL(*o.BaseURL); err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("--base-url: %w", err)}
		}
	}
	state := ""
	path, err := editConfig(f, func(cfg *config.File) error {
		p := cfg.Profiles[o.Name]
		if p == nil {
			p = &config.Profile{}
			cfg.Profiles[o.Name] = p
		}
		if o.BaseURL != nil {
			p.BaseURL = *o.BaseURL
		}
		if o.APIKey != nil {
			p.APIKey = *o.APIKey
		}
		if cfg.Current == "" {
			cfg.Current = o.Name
		}
		if cfg.Current == o.Name {
			state = " (current)"
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Saved profile %s%s in %s\n", o.Name, state, path)
	return nil
}

// ConfigUseOptions are the inputs of `traineectl config use`.
type ConfigUseOptions struct {
	Name string
}

func newConfigUseCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "use NAME",
		Short:             "Make a profile the current one",
		Example:           `  traineectl config use prod`,
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: completeProfiles(f, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConfigUse(f, &ConfigUseOptions{Name: args[0]})
		},
	}
}

// runConfigUse makes the profile the current one.
func runConfigUse(f *cmdutil.Factory, o *ConfigUseOptions) error {
	_, err := editConfig(f, func(cfg *config.File) error {
		if _, ok := cfg.Profiles[o.Name]; !ok {
			return cmdutil.Usagef("no profile %q: create it with `traineectl config set-profile %s --base-url ... --api-key ...`", o.Name, o.Name)
		}
		cfg.Current = o.Name
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Now using profile %s\n", o.Name)
	return nil
}

// ConfigListOptions are the inputs of `traineectl config list`: none.
type ConfigListOptions struct{}

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
			return runConfigList(f, &ConfigListOptions{})
		},
	}
}

// runConfigList prints the profiles, their keys masked.
func runConfigList(f *cmdutil.Factory, _ *ConfigListOptions) error {
	cfg, _, err := loadConfig(f)
	if err != nil {
		return err
	}
	list := []profileJSON{}
	for _, n := range cfg.Names() {
		p := cfg.Profiles[n]
		list = append(list, profileJSON{n, n == cfg.Current, p.BaseURL, client.MaskKey(p.APIKey)})
	}
	rows := make([][]string, len(list))
	csvRows := make([][]string, len(list))
	for i, p := range list {
		cur := ""
		if p.Current {
			cur = "*"
		}
		rows[i] = []string{cur, p.Name, p.BaseURL, p.APIKey}
		csvRows[i] = []string{fmt.Sprint(p.Current), p.Name, p.BaseURL, p.APIKey}
	}
	return f.Print(output.View{Value: list, CSVHeader: []string{"current", "name", "baseUrl", "apiKey"}, CSVRows: csvRows,
		Columns: []output.Column{
			{Header: "CURRENT", Field: "current"}, {Header: "NAME", Field: "name", Flex: true},
			{Header: "BASE URL", Field: "baseUrl", Flex: true}, {Header: "API KEY", Field: "apiKey"},
		}, Rows: rows})
}

func loadConfig(f *cmdutil.Factory) (*config.File, string, error) {
	path, err := f.ConfigPath()
	if err != nil {
		return nil, "", err
	}
	cfg, err := f.Config()
	return cfg, path, err
}

// editConfig loads the profile file, lets edit change it, and saves it
// unless edit fails; it gives the file's path.
func editConfig(f *cmdutil.Factory, edit func(*config.File) error) (string, error) {
	cfg, path, err := loadConfig(f)
	if err != nil {
		return "", err
	}
	if err := edit(cfg); err != nil {
		return "", err
	}
	return path, cfg.Save(path)
}
