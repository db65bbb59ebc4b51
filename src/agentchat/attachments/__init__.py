"""Attachments: files and images a person adds to a question, stored so that every API
process and bridge can read them (no shared disk), sent to the agent as it can take them."""
