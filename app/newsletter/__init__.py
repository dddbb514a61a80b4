"""The newsletter: double opt-in subscriptions, one-click unsubscribe, and a sender safe to run again."""
