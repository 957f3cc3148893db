package admin

import (
	"fmt"

	m "example.com/shop/internal/model"
)

// Audit names both users; model.Line in this comment is no use.
func Audit(u User, customer m.User) string {
	return fmt.Sprintf("%s looked at %s", u.Login, customer.Name)
}
