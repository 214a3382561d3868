package server

import (
	"net/http"

	"github.com/traineed/traineed/api"
)

// reserved answers the automations interface, which the original service
// names but reserves for a later release: 400 with errorCode 1013.
func (h *Handler) reserved(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, api.Invalid(api.CodeReserved, "", "automations are reserved for a later release"))
}
