import Foundation

/// An authentication error, as the Firebase Apple SDK reports it: a ``Code`` in the
/// `FIRAuthErrorDomain`, whose raw value is what `error._code` and `(error as NSError).code` give.
public struct AuthErrorCode: Error, CustomNSError, LocalizedError, Sendable {
    /// Firebase's error codes.
    public enum Code: Int, Sendable {
        case invalidCustomToken = 17000
        case customTokenMismatch = 17002
        case invalidCredential = 17004
        case userDisabled = 17005
        case operationNotAllowed = 17006
        case emailAlreadyInUse = 17007
        case invalidEmail = 17008
        case wrongPassword = 17009
        case tooManyRequests = 17010
        case userNotFound = 17011
        case accountExistsWithDifferentCredential = 17012
        case requiresRecentLogin = 17014
        case providerAlreadyLinked = 17015
        case noSuchProvider = 17016
        case invalidUserToken = 17017
        case networkError = 17020
        case userTokenExpired = 17021
        case invalidAPIKey = 17023
        case userMismatch = 17024
        case credentialAlreadyInUse = 17025
        case weakPassword = 17026
        case expiredActionCode = 17029
        case invalidActionCode = 17030
        case missingEmail = 17034
        case missingIosBundleID = 17036
        case missingAndroidPackageName = 17037
        case unauthorizedDomain = 17038
        case invalidContinueURI = 17039
        case missingContinueURI = 17040
        case missingPhoneNumber = 17041
        case invalidPhoneNumber = 17042
        case missingVerificationCode = 17043
        case invalidVerificationCode = 17044
        case missingVerificationID = 17045
        case invalidVerificationID = 17046
        case sessionExpired = 17051
        case adminRestrictedOperation = 17085
        case internalError = 17999
    }

    /// The error's code.
    public let code: Code
    /// The server's explanation, when it gave one (the reason a password is weak, say).
    public let failureReason: String?

    public init(_ code: Code, failureReason: String? = nil) {
        self.code = code
        self.failureReason = failureReason
    }

    public static var errorDomain: String { "FIRAuthErrorDomain" }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: errorDescription ?? ""]
        if let failureReason { info[NSLocalizedFailureReasonErrorKey] = failureReason }
        return info
    }

    public var errorDescription: String? {
        switch code {
        case .invalidCustomToken: "The custom token format is incorrect. Please check the documentation."
        case .customTokenMismatch: "The custom token corresponds to a different audience."
        case .invalidCredential: "The supplied auth credential is malformed or has expired."
        case .userDisabled: "The user account has been disabled by an administrator."
        case .operationNotAllowed:
            "The given sign-in provider is disabled for this Firebase project. Enable it in the Firebase console, under the sign-in method tab of the Auth section."
        case .emailAlreadyInUse: "The email address is already in use by another account."
        case .invalidEmail: "The email address is badly formatted."
        case .wrongPassword: "The password is invalid or the user does not have a password."
        case .tooManyRequests: "We have blocked all requests from this device due to unusual activity. Try again later."
        case .userNotFound: "There is no user record corresponding to this identifier. The user may have been deleted."
        case .accountExistsWithDifferentCredential:
            "An account already exists with the same email address but different sign-in credentials. Sign in using a provider associated with this email address."
        case .requiresRecentLogin:
            "This operation is sensitive and requires recent authentication. Log in again before retrying this request."
        case .providerAlreadyLinked: "[ERROR_PROVIDER_ALREADY_LINKED] - User can only be linked to one identity for the given provider."
        case .noSuchProvider: "User was not linked to an account with the given provider."
        case .invalidUserToken:
            "This user's credential isn't valid for this project. This can happen if the user's token has been tampered with, or if the user isn't for the project associated with this API key."
        case .networkError: "Network error (such as timeout, interrupted connection or unreachable host) has occurred."
        case .userTokenExpired: "The user's credential is no longer valid. The user must sign in again."
        case .invalidAPIKey: "An invalid API Key was supplied in the request."
        case .userMismatch: "The supplied credentials do not correspond to the previously signed in user."
        case .credentialAlreadyInUse: "This credential is already associated with a different user account."
        case .weakPassword: "The password must be 6 characters long or more."
        case .expiredActionCode: "The action code has expired."
        case .invalidActionCode:
            "The action code is invalid. This can happen if the code is malformed, expired, or has already been used."
        case .missingEmail: "An email address must be provided."
        case .missingIosBundleID: "An iOS Bundle ID must be provided if an App Store ID is provided."
        case .missingAndroidPackageName: "An Android Package Name must be provided if the Android App is required to be installed."
        case .unauthorizedDomain:
            "The domain of the continue URL is not allowlisted. Please allowlist the domain in the Firebase console."
        case .invalidContinueURI: "The continue URL provided in the request is invalid."
        case .missingContinueURI: "A continue URL must be provided in the request."
        case .missingPhoneNumber: "To send verification codes, provide a phone number for the recipient."
        case .invalidPhoneNumber:
            "The format of the phone number provided is incorrect. Please enter the phone number in a format that can be parsed into E.164 format. E.164 phone numbers are written in the format [+][country code][subscriber number including area code]."
        case .missingVerificationCode: "The phone auth credential was created with an empty SMS verification Code."
        case .invalidVerificationCode:
            "The multifactor verification code used to create the auth credential is invalid. Re-collect the verification code and be sure to use the verification code provided by the user."
        case .missingVerificationID: "The phone auth credential was created with an empty verification ID."
        case .invalidVerificationID: "The verification ID used to create the phone auth credential is invalid."
        case .sessionExpired: "The SMS code has expired. Please re-send the verification code to try again."
        case .adminRestrictedOperation: "This operation is restricted to administrators only."
        case .internalError: "An internal error has occurred, print and inspect the error details for more information."
        }
    }

    /// The error for a message code of the Auth REST API (`EMAIL_EXISTS`, `WEAK_PASSWORD : …`).
    init(serverMessage: String) {
        let parts = serverMessage.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let reason = parts.count > 1 ? parts[1] : nil
        let code: Code =
            switch parts.first ?? "" {
            case "EMAIL_EXISTS": .emailAlreadyInUse
            case "USER_NOT_FOUND", "EMAIL_NOT_FOUND": .userNotFound
            case "INVALID_PASSWORD": .wrongPassword
            case "INVALID_LOGIN_CREDENTIALS", "INVALID_IDP_RESPONSE", "INVALID_PENDING_TOKEN": .invalidCredential
            case "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": .requiresRecentLogin
            case "INVALID_ID_TOKEN": .invalidUserToken
            case "TOKEN_EXPIRED": .userTokenExpired
            case "USER_DISABLED": .userDisabled
            case "WEAK_PASSWORD": .weakPassword
            case "TOO_MANY_ATTEMPTS_TRY_LATER": .tooManyRequests
            case "OPERATION_NOT_ALLOWED", "PASSWORD_LOGIN_DISABLED": .operationNotAllowed
            case "INVALID_EMAIL", "INVALID_IDENTIFIER": .invalidEmail
            case "MISSING_EMAIL": .missingEmail
            case "MISSING_IOS_BUNDLE_ID": .missingIosBundleID
            case "MISSING_ANDROID_PACKAGE_NAME": .missingAndroidPackageName
            case "UNAUTHORIZED_DOMAIN": .unauthorizedDomain
            case "INVALID_CONTINUE_URI": .invalidContinueURI
            case "MISSING_CONTINUE_URI": .missingContinueURI
            case "MISSING_PHONE_NUMBER": .missingPhoneNumber
            case "INVALID_PHONE_NUMBER": .invalidPhoneNumber
            case "MISSING_CODE": .missingVerificationCode
            case "INVALID_CODE": .invalidVerificationCode
            case "MISSING_SESSION_INFO": .missingVerificationID
            case "INVALID_SESSION_INFO": .invalidVerificationID
            case "SESSION_EXPIRED": .sessionExpired
            case "EXPIRED_OOB_CODE": .expiredActionCode
            case "INVALID_OOB_CODE": .invalidActionCode
            case "INVALID_CUSTOM_TOKEN": .invalidCustomToken
            case "CREDENTIAL_MISMATCH": .customTokenMismatch
            case "FEDERATED_USER_ID_ALREADY_LINKED", "PHONE_NUMBER_EXISTS": .credentialAlreadyInUse
            case "ADMIN_ONLY_OPERATION": .adminRestrictedOperation
            default: .internalError
            }
        self.init(code, failureReason: code == .internalError ? serverMessage : reason)
    }

    /// Whether the error means the session is over, so the user is signed out (as the Apple SDK
    /// does when a refresh or reload fails so).
    var endsSession: Bool {
        [.userNotFound, .userDisabled, .invalidUserToken, .userTokenExpired].contains(code)
    }
}

extension AuthErrorCode.Code {
    /// The code of a caught error, as `AuthErrorCode.Code(rawValue: error._code)` reads it.
    public init?(_ error: any Error) {
        self.init(rawValue: (error as NSError).code)
    }
}
