"""The refusals of accounts, each with its own code (the page words them in its languages)."""

from __future__ import annotations

import math

from agentchat.protocol.errors import AppError, Conflict, NotFound, TooManyRequests, Unauthorized


class BadCredentials(Unauthorized):
    code = "bad_credentials"


class SigninThrottled(TooManyRequests):
    code = "signin_throttled"

    def __init__(self, message: str, wait_s: float) -> None:
        super().__init__(message)
        self.headers = {"Retry-After": str(max(1, math.ceil(wait_s)))}


class AccountDisabled(AppError):
    status_code = 403
    code = "account_disabled"


class AccountPending(AppError):
    status_code = 403
    code = "account_pending"


class SignupClosed(AppError):
    status_code = 403
    code = "signup_closed"


class AccountsOff(Conflict):
    """Only once the first account exists (made by the server's one person)."""

    code = "accounts_off"


class InvitationInvalid(NotFound):
    code = "invitation_invalid"


class PasswordWrong(AppError):
    status_code = 403
    code = "password_wrong"


class OwnAccount(Conflict):
    code = "own_account"
