"""Who is at the other end of a local connection: the owner and the inode of the client's
socket (socket_owner), and whether a process of an agent holds it (agent_processes). Standard
library only: the API (web/) and the bridge both use it."""
