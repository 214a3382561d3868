package common

import (
	"fmt"

	"github.com/traineed/traineed/api"
)

// TriggerText is a trigger as the pages show it (escaped).
func TriggerText(tr api.AutomationTrigger) string {
	if tr.Days != nil {
		return fmt.Sprintf("%s %dd", api.EscapeText(tr.Type), *tr.Days)
	}
	return api.EscapeText(tr.Type)
}
