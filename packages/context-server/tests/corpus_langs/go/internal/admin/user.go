package admin

// User is an administrator: another User, in another package.
type User struct {
	Login string
}
