"""Accounts: people who share one server, their sign-in sessions, invitations, the audit log.

A server without accounts serves one person (agentchat.principal.SINGLE). The first account turns
accounts on: from then every request signs in as a user, and each chat and private model
belongs to one user (chat.deps and models.access check it)."""
