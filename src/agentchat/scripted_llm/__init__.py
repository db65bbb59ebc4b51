"""The scripted model: a deterministic OpenAI-compatible endpoint driven by directive lines.

Directives are lines of the latest user message, played in order; a tool directive ends a
step, and each request plays the step after the tool rounds already answered:

    #think TEXT          reasoning (`delta.reasoning_content`)
    #say TEXT            answer text (word by word)
    #tokens N [K]        N answer chunks "t1 t2 ... tN"; K tokens a chunk if given
    #delay MS            wait MS before every chunk from here on; #sleep MS waits once
    #hold NAME           wait until POST /v1/_gates/NAME (a test's barrier; at most 300 s)
    #tool NAME JSON      call tool NAME; #todo A; B; C calls `todo`; #clarify Q | C1 | C2
    #echo-tool-result    answer with the latest tool result
    #echo-context        answer "CONTEXT: " + the user messages, oldest first, joined by " | "
    #echo-tools          answer "TOOLS: " + the function names the request offered, sorted
    #usage N             report N prompt tokens for this step
    #fail STATUS [S]     answer this step's request with that HTTP status (S: Retry-After)
    #empty               answer with no content at all (finish_reason stop)
    #malformed           a `data:` line that is not JSON, in the stream
    #context N           refuse a prompt of more than N tokens (HTTP 400, OpenAI's words)
    #stall               the stream breaks here (once; hermes' continuation request plays on)

Without directives it plays a demo turn; summariser and review prompts get a short summary.
`server.create_app()` is the ASGI app, `server.serve_in_thread()` runs it on a free port and
`server.main()` backs `agentchat scripted-llm`.
"""
