namespace Shop.Admin.Models
{
    /// <summary>An administrator: another User, in another namespace.</summary>
    public class User
    {
        public string Login { get; init; } = "";
    }
}
