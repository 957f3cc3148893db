using Shop.Billing;

namespace Shop.App;

internal static class Program
{
    private static void Main()
    {
        var invoice = new Invoice();
        System.Console.WriteLine(invoice.Total());
        var text = "Shop.Admin.Audit";
    }
}
