package dev.loupe.app.control;

/** A request the control API refuses: the HTTP status and a sentence naming the problem. */
class ApiError extends RuntimeException {
  private final int status;

  ApiError(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  int status() {
    return status;
  }

  static ApiError badRequest(String message) {
    return new ApiError(400, message);
  }

  static ApiError notFound(String message) {
    return new ApiError(404, message);
  }

  static ApiError conflict(String message) {
    return new ApiError(409, message);
  }
}
