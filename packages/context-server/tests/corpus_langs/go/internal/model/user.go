package model

// User is a customer account.
type User struct {
	Name string
}
