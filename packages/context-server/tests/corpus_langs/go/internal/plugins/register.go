package plugins

var registered []string

func init() {
	registered = append(registered, "plugins")
}
