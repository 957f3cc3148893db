name := "cli"
