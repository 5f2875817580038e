"""What runs cost before they run: estimates from the log's own history (estimate, plan)."""
