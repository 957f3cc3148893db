using M = Shop.Models;

namespace Shop.Admin
{
    /* Shop.Billing.Invoice and Line appear in this comment only */
    internal class Audit
    {
        private Models.User admin = new();
        private M.User customer = new();

        public string Describe() => $"{admin.Login} looked at {customer.Name}: \"Line\"";
    }
}
