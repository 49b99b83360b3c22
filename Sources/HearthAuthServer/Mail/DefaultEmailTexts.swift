extension EmailTemplate {
    /// The built-in subject and text of the emails of `kind`, with placeholders (auth spec §10.4).
    static func builtIn(_ kind: ActionCode.Kind) -> Self {
        switch kind {
        case .verifyEmail:
            Self(
                subject: "Confirm your email address for %APP_NAME%",
                text: """
                    Hello %DISPLAY_NAME%,

                    Please confirm that %EMAIL% is your email address for %APP_NAME% by opening this link:

                    %LINK%

                    If you did not sign up for %APP_NAME% with this address, you can ignore this email.

                    Thank you,
                    The %APP_NAME% team

                    """)
        case .passwordReset:
            Self(
                subject: "Reset your password for %APP_NAME%",
                text: """
                    Hello %DISPLAY_NAME%,

                    Someone asked to reset the password of the %APP_NAME% account of %EMAIL%. To choose a new password, open this link:

                    %LINK%

                    If you did not ask for this, you can ignore this email; your password stays as it is.

                    Thank you,
                    The %APP_NAME% team

                    """)
        case .emailSignIn:
            Self(
                subject: "Sign in to %APP_NAME%",
                text: """
                    Hello,

                    Open this link to sign in to %APP_NAME% as %EMAIL%:

                    %LINK%

                    If you did not ask to sign in, you can ignore this email.

                    Thank you,
                    The %APP_NAME% team

                    """)
        case .verifyAndChangeEmail:
            Self(
                subject: "Confirm your new email address for %APP_NAME%",
                text: """
                    Hello %DISPLAY_NAME%,

                    To change the sign-in email of your %APP_NAME% account from %EMAIL% to %NEW_EMAIL%, open this link:

                    %LINK%

                    Until you do, your sign-in email stays %EMAIL%. If you did not ask for this change, you can ignore this email.

                    Thank you,
                    The %APP_NAME% team

                    """)
        case .recoverEmail:
            Self(
                subject: "Your sign-in email for %APP_NAME% was changed",
                text: """
                    Hello %DISPLAY_NAME%,

                    The sign-in email of your %APP_NAME% account was changed from %EMAIL% to another address.

                    If you made this change, there is nothing to do. If you did not, open this link to make %EMAIL% your sign-in email again:

                    %LINK%

                    Then we recommend that you change your password as well.

                    Thank you,
                    The %APP_NAME% team

                    """)
        }
    }
}
