"""Other ways in: the agent over AG-UI, the app in a browser, the knowledge base over MCP.

Each module imports its server library (starlette/uvicorn, textual-serve, mcp) lazily, inside
its functions, so ``haiku-tui --help`` stays fast and the extras stay optional.
"""
